/*
 * A partner recovers: it resends every dead letter of its own since a time (optionally of one of
 * its endpoints) in one request, under the same rules as a single resend (resend-delivery.ts): the
 * same replay and audit (DeadLetterReplay, the partner as its actor), the same refusals (superseded,
 * already resent, resent too often) and the same hourly limit, each resend taking a place of it.
 * A dry run answers what would happen and writes nothing; the real run answers what was resent and
 * what was not, and why. At most MAX_RECOVERED_PER_REQUEST deliveries are looked at per request,
 * the oldest first: a bigger backlog is recovered in parts (what was resent is not dead-lettered
 * any more, so the next request takes the next ones).
 */
import { NotFoundError } from '@hookstream/errors';
import { DeadLetterReplay, type DeadLetter, type DlqSession, type ReplayDecision } from '@hookstream/dead-letters';
import type { ReplayLanes } from '../adapters/kafka/replay-lanes';
import type { DeadLetterPlace } from '../adapters/store/queries/resend-queries';
import type { Reservation } from '../adapters/store/resend-reservations';
import { partnerOperator, policiesOf, type ResendStore } from './resend-delivery';

export const MAX_RECOVERED_PER_REQUEST = 100;

/** A delivery of the partner's still dead-lettered, with where its newest dead letter is. */
export interface WaitingDelivery {
  delivery_id: string;
  endpoint_id: string;
  policy_number: string;
  dead_lettered_at: Date;
  letter: DeadLetterPlace;
}

/** What a recovery needs of the log's store (adapters/store/recovery-store.ts implements it on PostgreSQL). */
export interface RecoveryStore {
  /** Whether the partner has this endpoint, or had it for a delivery still dead-lettered. */
  endpointKnown(partnerId: string, endpointId: string): Promise<boolean>;
  /** The partner's deliveries dead-lettered at or after `since` (and before `until`, when given) and not resent since, oldest first, at most `limit`. */
  waitingSince(
    partnerId: string,
    window: { since: Date; until?: Date | undefined },
    endpointId: string | undefined,
    limit: number,
  ): Promise<WaitingDelivery[]>;
  /** How many resends the partner may still make this hour. */
  resendsLeft(partnerId: string, now: Date): Promise<number>;
  reserve(partnerId: string, deliveryId: string, now: Date): Promise<Reservation>;
  release(reservationId: string): Promise<void>;
  /** The newest version of each policy the partner's callbacks carried, per endpoint (the plan's superseded check). */
  emittedVersions: ResendStore['emittedVersions'];
}

export type NotResentReason = 'superseded' | 'already_resent' | 'resent_too_often' | 'hourly_limit' | 'cannot_resend';

export interface RecoveryItem {
  delivery_id: string;
  endpoint_id: string;
  policy_number: string;
  dead_lettered_at: Date;
}

export interface Recovery {
  dry_run: boolean;
  since: Date;
  /** The end of the time looked at: the request's `until`, else when it was answered. Send it as `until` with the real run to resend what the dry run showed and nothing dead-lettered after it. */
  until: Date;
  endpoint_id: string | null;
  /** Deliveries dead-lettered since then and waiting, as far as this request looked (at most MAX_RECOVERED_PER_REQUEST). */
  selected: number;
  /** More are waiting beyond those: recover again once these are done. */
  more: boolean;
  /** Resends the hourly limit allows now (before this request). */
  resends_left_this_hour: number;
  /** Resent (a dry run: would be resent now). */
  resent: Array<RecoveryItem & { replay_id: string | null }>;
  not_resent: Array<RecoveryItem & { reason: NotResentReason; message: string; retry_after_seconds?: number }>;
}

export interface RecoveryRequest {
  since: Date;
  until?: Date | undefined;
  endpointId?: string | undefined;
  dryRun: boolean;
  reason: string;
}

export class DeadLetterRecovery {
  constructor(
    private readonly store: RecoveryStore,
    private readonly session: DlqSession,
    private readonly lanes: ReplayLanes,
  ) {}

  async recover(partnerId: string, request: RecoveryRequest, now = new Date()): Promise<Recovery> {
    const { since, endpointId, dryRun } = request;
    const until = request.until ?? now;
    if (endpointId !== undefined && !(await this.store.endpointKnown(partnerId, endpointId))) {
      throw new NotFoundError('endpoint', 'no endpoint with that id');
    }
    const found = await this.store.waitingSince(partnerId, { since, until }, endpointId, MAX_RECOVERED_PER_REQUEST + 1);
    const waiting = found.slice(0, MAX_RECOVERED_PER_REQUEST);
    const left = await this.store.resendsLeft(partnerId, now);
    const answer: Recovery = {
      dry_run: dryRun,
      since,
      until,
      endpoint_id: endpointId ?? null,
      selected: waiting.length,
      more: found.length > waiting.length,
      resends_left_this_hour: left,
      resent: [],
      not_resent: [],
    };
    if (waiting.length === 0) return answer;
    // The plan and the resend take their turn with the topic's other replays (replay-lanes.ts), as a resend does.
    return this.lanes.run('callback', async () => {
      // What the replay would decide for each, as a single resend's plan (nothing written).
      const plan = await this.decide(
        partnerId,
        waiting,
        request.reason,
        true,
        () => undefined,
        () => undefined,
      );
      const resendable = waiting.filter((w) => plan.get(w.delivery_id)?.outcome === 'replayed');
      for (const w of waiting) {
        const decision = plan.get(w.delivery_id);
        if (decision?.outcome !== 'replayed') answer.not_resent.push({ ...itemOf(w), ...(decision ? refusalOf(decision) : notFound) });
      }
      if (!dryRun) return this.resend(partnerId, resendable, request.reason, answer, now);
      resendable.forEach((w, i) =>
        i < left ? answer.resent.push({ ...itemOf(w), replay_id: null }) : answer.not_resent.push({ ...itemOf(w), ...hourlyLimit(left) }),
      );
      return answer;
    });
  }

  /** Takes a place of the hour for each, in order, until the limit refuses one; replays those; gives back the places of any not replayed. */
  private async resend(partnerId: string, resendable: WaitingDelivery[], reason: string, answer: Recovery, now: Date): Promise<Recovery> {
    const reserved: Array<{ waiting: WaitingDelivery; reservationId: string }> = [];
    // Once the replay starts writing, a place may have been used even if it then fails: kept, not given back.
    let started = false;
    let replayId: string | null = null;
    let decisions: Map<string, ReplayDecision>;
    try {
      for (const [i, w] of resendable.entries()) {
        const reservation = await this.store.reserve(partnerId, w.delivery_id, now);
        if (!reservation.reserved) {
          for (const rest of resendable.slice(i)) {
            answer.not_resent.push({
              ...itemOf(rest),
              ...hourlyLimit(answer.resends_left_this_hour),
              retry_after_seconds: reservation.retryAfterSeconds,
            });
          }
          break;
        }
        reserved.push({ waiting: w, reservationId: reservation.reservationId });
      }
      if (reserved.length === 0) return answer;
      decisions = await this.decide(
        partnerId,
        reserved.map((r) => r.waiting),
        reason,
        false,
        () => {
          started = true;
        },
        (id) => {
          replayId = id;
        },
      );
    } catch (error) {
      // Nothing was resent: every place taken goes back (a lost one leaves the hour by itself).
      if (!started) await Promise.all(reserved.map((r) => this.store.release(r.reservationId).catch(() => undefined)));
      throw error;
    }
    for (const { waiting, reservationId } of reserved) {
      const decision = decisions.get(waiting.delivery_id);
      if (decision?.outcome === 'replayed') {
        answer.resent.push({ ...itemOf(waiting), replay_id: replayId });
        continue;
      }
      await this.store.release(reservationId).catch(() => undefined);
      answer.not_resent.push({
        ...itemOf(waiting),
        ...(decision ? refusalOf(decision) : notFound),
      });
    }
    return answer;
  }

  /**
   * One replay of the deliveries' newest dead letters (a dry run, or the real one with its audit),
   * its decision per delivery. `ran` gets the real run's id.
   */
  private async decide(
    partnerId: string,
    deliveries: WaitingDelivery[],
    reason: string,
    dryRun: boolean,
    starting: () => void,
    ran: (replayId: string) => void,
  ): Promise<Map<string, ReplayDecision>> {
    const oldest = Math.min(...deliveries.map((d) => d.letter.dead_lettered_at.getTime()));
    const selection = {
      partners: [partnerId],
      deliveryIds: deliveries.map((d) => d.delivery_id),
      offsets: deliveries.map(({ letter }) => ({
        partition: letter.source_partition,
        from: BigInt(letter.source_offset),
        to: BigInt(letter.source_offset),
      })),
      // callback-dlq is read from a minute before the oldest, not whole.
      since: oldest - 60_000,
    };
    const actor = { type: 'partner' as const, id: partnerId, name: partnerOperator(partnerId) };
    const request = {
      ...{ selection, reason, actor, force: false, ratePerSecond: 10 },
      // From the log's store, not callback-requests read for the hour before (every partner's requests of it).
      emittedVersions: (letters: DeadLetter[]) => this.store.emittedVersions(partnerId, policiesOf(letters)),
    };
    const replay = await DeadLetterReplay.prepare(this.session, request, { dryRun });
    try {
      let decisions: readonly ReplayDecision[] = replay.prepared.decisions;
      if (!dryRun && decisions.some((d) => d.outcome === 'replayed')) {
        starting();
        decisions = (await replay.execute()).decisions;
        ran(replay.prepared.run.replayId);
      }
      return new Map(decisions.filter((d) => d.letter.deliveryId !== null).map((d) => [d.letter.deliveryId!, d]));
    } finally {
      // Closing its reader and writer cannot undo what was replayed: a failure to close is not the request's.
      await replay.close().catch(() => undefined);
    }
  }
}

const itemOf = (w: WaitingDelivery): RecoveryItem => ({
  delivery_id: w.delivery_id,
  endpoint_id: w.endpoint_id,
  policy_number: w.policy_number,
  dead_lettered_at: w.dead_lettered_at,
});

const notFound = { reason: 'cannot_resend' as const, message: 'its dead letter was not found in the topic; retry later' };

const hourlyLimit = (left: number) => ({
  reason: 'hourly_limit' as const,
  message: `beyond the resends left this hour (${left}); recover again later`,
});

function refusalOf(decision: ReplayDecision): { reason: NotResentReason; message: string } {
  switch (decision.outcome) {
    case 'skipped-superseded':
      return {
        reason: 'superseded',
        message: 'a newer status of this policy was delivered to this endpoint first, so it is not sent again',
      };
    case 'skipped-already-replayed':
      return { reason: 'already_resent', message: 'already resent, and not dead-lettered again since' };
    case 'skipped-replay-limit':
      return {
        reason: 'resent_too_often',
        message: `resent ${decision.replayCount} times already, the most allowed; the insurer's operators can still replay it`,
      };
    default:
      return { reason: 'cannot_resend', message: `cannot be resent: ${decision.detail}` };
  }
}
