import { randomUUID } from 'node:crypto';
import type { EmittedPolicyVersions } from '@hookstream/contract';
import type { Actor } from '@hookstream/partners';
import { ReplayRefused } from './replay-refused';
import { readAudit } from '../audit/audit-reader';
import type { ReplayRun } from '../audit/audit-trail';
import type { DeadLetter, DlqRecord } from '../read/dead-letter';
import { readDeadLetters } from '../read/dead-letter-reader';
import type { DlqSession } from '../dlq-session';
import { readEmittedVersions, readPartners } from '../read/related-records';
import { planReplay, type ReplayDecision } from './replay-plan';
import { describeSelection, type Selection } from '../read/selection';

/** A margin before the oldest selected delivery was built, for the versions read: clocks of the writers differ a little. */
const VERSIONS_MARGIN_MS = 60 * 60_000;

export interface ReplayRequest {
  selection: Selection;
  reason: string;
  /** Who replays, for the audit (the CLI's user, an operator, a partner resending its own). */
  actor: Actor;
  force: boolean;
  ratePerSecond: number;
  /**
   * The newest versions emitted for these (ordered topics') letters' policies, from where the caller
   * already keeps them (the delivery log's store). Default: read from callback-requests since an hour
   * before the oldest selected delivery was built, every partner's requests of that time: on a busy
   * topic most of a plan's time (200,000 requests in that hour: 50 s for one letter).
   */
  emittedVersions?: (letters: DeadLetter[]) => Promise<Pick<EmittedPolicyVersions, 'isSuperseded' | 'newest'>>;
}

export interface PreparedReplay {
  run: ReplayRun;
  /** One per selected dead letter, oldest first, with the record a replay re-queues from. */
  decisions: Array<ReplayDecision & { record: DlqRecord }>;
}

/**
 * Selects the dead letters and decides for each what a replay does (replay-plan.ts), from what
 * Kafka holds now: the audit (already replayed, replays so far), and for ordered topics the
 * versions emitted on callback-requests since the oldest selected delivery was built and each
 * endpoint's ordering mode. Writes nothing. A --delivery-id or --event-id that no dead letter of
 * the topic carries is refused (exit 2) rather than replaying nothing quietly.
 */
export async function prepareReplay(session: DlqSession, request: ReplayRequest, now = Date.now()): Promise<PreparedReplay> {
  const { letters } = session;
  // The reads that need nothing of each other run side by side: each scan pays for its own client
  // (connect, metadata, offsets, close), and one after the other they were most of a plan's time.
  const reads = settled([
    readDeadLetters(session, request.selection, { keepRecords: true }),
    readAudit(session),
    letters.ordered ? readPartners(session) : Promise.resolve(undefined),
  ] as const);
  const [{ selected, unseen }, audit, allPartners] = await reads;
  if (unseen) {
    const where = request.selection.since === undefined ? '' : ' at or after --since';
    throw new ReplayRefused(`${unseen.flag}: no dead letter in ${session.topicName(letters.source)}${where} has ${unseen.ids.join(', ')}`);
  }
  const candidates = selected.filter((s) => s.letter.unreplayable === null);
  const ordered = letters.ordered && candidates.length > 0;
  const oldest = Math.min(...candidates.map((s) => s.letter.createdAt ?? s.letter.deadLetteredAt));
  // The versions are read from the oldest selected delivery's build: known only once the dead letters are.
  const versions = !ordered
    ? undefined
    : request.emittedVersions
      ? await request.emittedVersions(candidates.map((s) => s.letter))
      : await readEmittedVersions(session, oldest - VERSIONS_MARGIN_MS);
  const partners = ordered ? allPartners : undefined;

  const planned = planReplay(
    selected.map((s) => s.letter),
    {
      alreadyReplayed: (letter) => audit.isReplayed(letter),
      auditedReplays: (letter) => audit.replaysOf(letter),
      newerVersion: (letter) => {
        const { partnerId, endpointId, policyNumber, policyVersion } = letter;
        if (!versions || !partners || !partnerId || !endpointId || !policyNumber || policyVersion === null) return undefined;
        // As the sender judges (send-callback.ts): every endpoint is latest-wins unless it says NONE.
        const endpoint = partners.get(partnerId)?.callback_endpoints.find((e) => e.endpoint_id === endpointId);
        if (endpoint?.ordering === 'NONE' || !versions.isSuperseded(partnerId, endpointId, policyNumber, policyVersion)) return undefined;
        return versions.newest(partnerId, endpointId, policyNumber);
      },
    },
    { maxReplays: session.maxReplays, force: request.force },
  );
  return {
    run: {
      replayId: randomUUID(),
      actor: request.actor,
      startedAt: now,
      reason: request.reason,
      selectorJson: JSON.stringify({
        topic: letters.source,
        ...describeSelection(request.selection),
        force: request.force,
        rate_per_second: request.ratePerSecond,
      }),
      sourceTopic: letters.source,
      targetTopic: letters.target,
    },
    decisions: planned.map((decision, i) => ({ ...decision, record: selected[i]!.record! })),
  };
}

/** All of `reads`, once every one has ended (none left running when one fails); the first failure is thrown. */
async function settled<T extends readonly unknown[]>(reads: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const results = await Promise.allSettled(reads);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
