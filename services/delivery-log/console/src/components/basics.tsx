/** Small pieces every view uses: a state badge, a failure note, a key–value list, a load-more button. */
import type { ComponentChildren } from 'preact';
import { ApiFailure } from '../api';

const STATE_TONES: Record<string, string> = {
  delivered: 'good',
  DELIVERED: 'good',
  STORED: 'good',
  pending: 'neutral',
  PENDING: 'neutral',
  failing: 'warn',
  FAILED_ATTEMPT: 'warn',
  SKIPPED_CIRCUIT_OPEN: 'warn',
  dead_lettered: 'bad',
  DEAD_LETTERED: 'bad',
  FAILED: 'bad',
  superseded: 'muted',
  SUPERSEDED: 'muted',
  ALREADY_DELIVERED: 'muted',
};

export function Badge({ value }: { value: string }) {
  return <span class={`badge badge-${STATE_TONES[value] ?? 'neutral'}`}>{value.replace(/_/g, ' ').toLowerCase()}</span>;
}

export function Failure({ error }: { error: Error | undefined }) {
  if (!error) return null;
  const code = error instanceof ApiFailure ? ` (${error.status} ${error.errorCode})` : '';
  return (
    <p class="failure" role="alert">
      {error.message}
      {code}
    </p>
  );
}

export function Facts({ rows }: { rows: Array<[string, ComponentChildren]> }) {
  return (
    <dl class="facts">
      {rows.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value ?? '–'}</dd>
        </div>
      ))}
    </dl>
  );
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="panel" aria-label={title}>
      <header class="panel-head">
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}
