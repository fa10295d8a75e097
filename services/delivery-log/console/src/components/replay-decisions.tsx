/*
 * What a replay of dead letters decided, in plain words (glossary.ts): a dry run's "would replay"
 * (nothing was replayed yet, so nothing is badged as replayed), the replay's "replayed", and why any
 * was skipped, without the command line's flags.
 */
import type { ReplayAnswer } from '../api/operator-views';
import { Badge } from './basics';

/** The count's words as the summary says them: "1 replayed", "2 skipped (replayed before)". */
const COUNT_WORDS: Record<string, string> = {
  replayed: 'replayed',
  'skipped-superseded': 'skipped (superseded)',
  'skipped-already-replayed': 'skipped (replayed before)',
  'skipped-replay-limit': 'skipped (replayed too often)',
  failed: 'cannot be replayed',
};

/** A decision's detail without the command line's advice (the console has no flags). */
export const detailInWords = (detail: string) =>
  detail.replace(/\s*\((?:--force|DLQ_MAX_REPLAYS)[^)]*\)/g, '').replace(/ \(DLQ_MAX_REPLAYS\)/g, '');

export function ReplayDecisions({ answer }: { answer: ReplayAnswer }) {
  return (
    <>
      <p>
        {answer.dry_run ? 'Would do: ' : 'Done: '}
        {Object.entries(answer.counts)
          .filter(([, n]) => n > 0)
          .map(([outcome, n]) => `${n} ${COUNT_WORDS[outcome] ?? outcome}`)
          .join(', ') || 'nothing selected'}
      </p>
      <ul class="decisions">
        {answer.decisions.map((d) => (
          <li key={`${d.partition}:${d.offset}`}>
            {answer.dry_run && d.outcome === 'replayed' ? (
              <span class="badge badge-neutral">would replay</span>
            ) : (
              <Badge kind="replay" value={d.outcome} />
            )}{' '}
            {d.partner_id} {d.policy_number} <code>{d.delivery_id ?? d.event_id}</code>
            {d.detail && <span class="muted"> — {detailInWords(d.detail)}</span>}
          </li>
        ))}
      </ul>
    </>
  );
}
