import { coordinatesOf, type DeadLetter, countOutcomes, type ReplayDecision } from '@hookstream/dead-letters';

export { decisionJson, letterJson } from '@hookstream/dead-letters';
import { formatTable } from '../output';

/** How `hookstream dlq` prints dead letters and replay decisions: one JSON shape and one table. */

/** What `list` shows of the last failure: the HTTP status when it was one, else the failure class. */
function lastFailure(letter: DeadLetter): string {
  if (letter.lastHttpStatus !== null) return `HTTP ${letter.lastHttpStatus}`;
  return letter.errorClass ?? '-';
}

/** The table of `list`: one line per dead letter. */
export function letterTable(rows: Array<{ letter: DeadLetter; replayed: boolean }>): string {
  const idHeader = rows.some((r) => r.letter.deliveryId !== null) || rows.length === 0 ? 'delivery id' : 'event id';
  return formatTable([
    ['dead-lettered at', 'partner', 'policy', 'status', 'attempts', 'last', idHeader, 'partition:offset', 'replayed'],
    ...rows.map(({ letter, replayed }) => [
      new Date(letter.deadLetteredAt).toISOString(),
      letter.partnerId ?? '?',
      letter.policyNumber ?? '?',
      letter.undecodable !== null ? 'UNDECODABLE' : (letter.policyStatus ?? '?'),
      letter.attempts === null ? '-' : String(letter.attempts),
      lastFailure(letter),
      letter.deliveryId ?? letter.eventId ?? '-',
      coordinatesOf(letter),
      replayed ? 'yes' : 'no',
    ]),
  ]);
}

/** One line per decision: what a replay does (or did) with each dead letter, and why. */
export function decisionLines(decisions: readonly ReplayDecision[], dryRun: boolean): string[] {
  return decisions.map((d) => {
    const what = `${coordinatesOf(d.letter)} ${d.letter.deliveryId ?? d.letter.eventId ?? ''} (${d.letter.partnerId ?? '?'}, ${d.letter.policyNumber ?? '?'} v${d.letter.policyVersion ?? '?'})`;
    const verb = d.outcome === 'replayed' ? (dryRun ? 'would replay' : 'replayed') : dryRun ? `would be ${d.outcome}` : d.outcome;
    return `${verb.padEnd(dryRun ? 34 : 24)} ${what}${d.detail ? `: ${d.detail}` : ''}${d.outcome === 'replayed' ? ` (replay ${d.replayCount})` : ''}`;
  });
}

/** The summary line: how many were replayed, skipped by reason, failed. */
export function summaryLine(decisions: readonly ReplayDecision[], interrupted: number, dryRun: boolean): string {
  const counts = countOutcomes(decisions);
  const parts = [
    `${counts.replayed} ${dryRun ? 'to replay' : 'replayed'}`,
    `${counts['skipped-superseded']} skipped as superseded`,
    `${counts['skipped-already-replayed']} skipped as already replayed`,
    `${counts['skipped-replay-limit']} skipped at the replay limit`,
    `${counts.failed} ${dryRun ? 'would fail' : 'failed'}`,
  ];
  if (interrupted > 0) parts.push(`${interrupted} not attempted (interrupted)`);
  return `${dryRun ? 'dry run, nothing written: ' : ''}${decisions.length + interrupted} selected: ${parts.join(', ')}`;
}
