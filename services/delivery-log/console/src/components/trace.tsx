/*
 * The trace a delivery, an attempt or a webhook was recorded in (docs/tracing.md): its id, which a
 * partner quotes to the insurer's support, and for an operator whose deployment names its trace
 * store (DELIVERY_LOG_TRACE_URL) a link to the whole trace: every service it crossed, with times.
 */
import type { Session } from '../api';

export function Trace({ session, traceId }: { session: Session; traceId: string | null }) {
  if (traceId === null) return <span class="muted">not traced</span>;
  const template = session.kind === 'operator' ? session.trace_url : null;
  return (
    <>
      <code>{traceId}</code>
      {template && (
        <>
          {' '}
          <a href={template.replace('{trace_id}', traceId)} target="_blank" rel="noopener noreferrer">
            open the trace
          </a>
        </>
      )}
    </>
  );
}
