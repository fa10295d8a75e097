/*
 * An audit record's detail as a person reads it: one line saying what it holds, expandable to the
 * whole of it, indented, wrapped (never clipped at the table's edge), with each time written as a
 * time with its zone beside it (epoch milliseconds, RFC 3339 texts).
 */
import { readable } from '../readable-detail';

export function AuditDetail({ detail }: { detail: Record<string, unknown> }) {
  const keys = Object.keys(detail);
  if (keys.length === 0) return <span class="muted">–</span>;
  return (
    <details class="audit-detail">
      <summary>{keys.slice(0, 4).join(', ') + (keys.length > 4 ? ` and ${keys.length - 4} more` : '')}</summary>
      <pre>{JSON.stringify(readable(detail), null, 2)}</pre>
    </details>
  );
}
