/*
 * An operator replays dead letters, as `hookstream dlq replay` does (DeadLetterReplay: its plan and
 * its audit, the operator as its actor). A dry run only answers the plan; a real one takes its turn
 * with partners' resends of the same topic (replay-lanes.ts) and is refused as a whole when it would
 * re-queue more than one request may.
 */
import { ErrorCodes, Refusal } from '@hookstream/errors';
import { DeadLetterReplay, countOutcomes, decisionJson, type DlqTopicChoice } from '@hookstream/dead-letters';
import type { DeadLetterSessions } from '../adapters/kafka/dead-letter-sessions';
import type { ReplayLanes } from '../adapters/kafka/replay-lanes';

/**
 * The most dead letters one request re-queues: at the default 50/s that is 20 s of a held request.
 * A bigger backlog is replayed in parts (what was replayed is skipped the next time) or with the CLI.
 */
export const MAX_REPLAYED_PER_REQUEST = 1000;

export type ReplayRequest = Parameters<typeof DeadLetterReplay.prepare>[1];

export async function replayDeadLetters(
  sessions: DeadLetterSessions,
  lanes: ReplayLanes,
  topic: DlqTopicChoice,
  request: ReplayRequest,
  dryRun: boolean,
) {
  const session = await sessions.of(topic);
  return lanes.run(topic, async () => {
    const replay = await DeadLetterReplay.prepare(session, request, { dryRun });
    try {
      const planned = replay.prepared.decisions;
      const replaying = planned.filter((d) => d.outcome === 'replayed').length;
      if (dryRun) return { dry_run: true, replay_id: null, counts: countOutcomes(planned), decisions: planned.map(decisionJson) };
      if (replaying > MAX_REPLAYED_PER_REQUEST) {
        throw new Refusal(
          ErrorCodes.CONFLICT,
          `${replaying} dead letters would be replayed; at most ${MAX_REPLAYED_PER_REQUEST} per request: narrow the selection (what is replayed is skipped next time) or use hookstream dlq replay`,
        );
      }
      const result = await replay.execute();
      return {
        dry_run: false,
        replay_id: replay.prepared.run.replayId,
        counts: countOutcomes(result.decisions),
        decisions: result.decisions.map(decisionJson),
      };
    } finally {
      await replay.close();
    }
  });
}
