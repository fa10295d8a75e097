/*
 * What a bulk action on a partner's deliveries did or would do, one line each: recover (resend
 * dead letters) and retry every failing delivery of an endpoint. Done ones badged in the action's
 * words with when they happened; the others with why, in words, and when a place frees this hour.
 */
import { link } from '../router';

export interface BulkOutcome {
  delivery_id: string;
  policy_number: string;
}

export interface BulkSkip extends BulkOutcome {
  reason: string;
  retry_after_seconds?: number | null;
}

export function BulkOutcomes<Done extends BulkOutcome>(props: {
  done: Done[];
  /** The done badge's words: "resent", "would resend"… */
  doneWords: string;
  /** What follows a done line's policy number: "made …", "to …, dead-lettered …". */
  detail: (outcome: Done) => string;
  skipped: BulkSkip[];
  skippedWords: string;
  reasons: Record<string, string>;
}) {
  return (
    <ul class="decisions">
      {props.done.map((r) => (
        <li key={r.delivery_id}>
          <span class="badge badge-good">{props.doneWords}</span> <a href={link('deliveries', r.delivery_id)}>{r.policy_number}</a>{' '}
          <span class="muted">{props.detail(r)}</span>
        </li>
      ))}
      {props.skipped.map((r) => (
        <li key={r.delivery_id}>
          <span class="badge badge-muted">{props.skippedWords}</span> <a href={link('deliveries', r.delivery_id)}>{r.policy_number}</a>{' '}
          <span class="muted">
            — {props.reasons[r.reason] ?? r.reason}
            {r.retry_after_seconds ? ` (a place frees in ${Math.ceil(r.retry_after_seconds / 60)} min)` : ''}
          </span>
        </li>
      ))}
    </ul>
  );
}
