/** Small pieces every view uses: a state badge, a failure note, a key–value list, a section. */
import type { ComponentChildren } from 'preact';
import { ApiFailure } from '../api';
import { termOf, type Kind } from '../glossary';

/**
 * A state or outcome as a badge: its plain words (glossary.ts), coloured by what it asks of the
 * reader (only what needs attention is an alert), its meaning on hover. Not a link (a list of rows
 * would gain a Tab stop per row): the glossary page has every meaning, linked from the header.
 */
export function Badge({ kind, value, label }: { kind: Kind; value: string; label?: string }) {
  const term = termOf(kind, value);
  return (
    <span class={`badge badge-${term?.tone ?? 'neutral'}`} title={term?.meaning}>
      {label ?? term?.words ?? value.replace(/_/g, ' ').toLowerCase()}
    </span>
  );
}

/** A failure as the person reads it: the message, then the code's plain words and the code (for support). */
export function Failure({ error }: { error: Error | undefined }) {
  if (!error) return null;
  const words = error instanceof ApiFailure ? termOf('error-code', error.errorCode)?.words : undefined;
  const code = error instanceof ApiFailure ? ` (${words ? `${words}: ` : ''}${error.status} ${error.errorCode})` : '';
  return (
    <p class="failure" role="alert" tabIndex={-1}>
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
