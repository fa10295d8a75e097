/*
 * A partner resends one of its dead-lettered callbacks: the same replay `hookstream dlq replay`
 * runs (DeadLetterReplay, its plan and its audit), selected to that delivery's dead letters, with
 * the partner as the operator. The delivery keeps its id; the sender delivers it again from
 * attempt 1. Refused, with the reason, when there is nothing to resend: not dead-lettered, a newer
 * status of the policy was delivered since (superseded), already resent, or resent too often.
 */
import { ErrorCodes, NotFoundError, Refusal } from '@hookstream/errors';
import type { EmittedPolicyVersions } from '@hookstream/contract';
import { DeadLetterReplay, type DeadLetter, type DlqSession, type ReplayDecision } from '@hookstream/dead-letters';
import type { DeliveryState } from '../adapters/store/tables';
import type { DeadLetterPlace } from '../adapters/store/queries/resend-queries';
import type { ReplayLanes } from '../adapters/kafka/replay-lanes';
import type { Reservation } from '../adapters/store/resend-reservations';

export interface ResendSettings {
  /** Resends one partner may make in an hour (reserved in the log's store as they are accepted, so across replicas). */
  perHour: number;
}

export interface Resent {
  delivery_id: string;
  replay_id: string;
  /** Resends of this delivery so far, this one included. */
  replay_count: number;
}

/** The audit's operator name of a partner's own resends. */
export const partnerOperator = (partnerId: string) => `partner:${partnerId}`;

/** What a resend needs of the log's store (adapters/store/resend-store.ts implements it on PostgreSQL). */
export interface ResendStore {
  /** The delivery's state, if it is the partner's; undefined when the partner has no such delivery. */
  deliveryStateOf(partnerId: string, deliveryId: string): Promise<DeliveryState | undefined>;
  /** Where the delivery's callback dead letters are, if it is the partner's. */
  callbackDeadLettersOf(partnerId: string, deliveryId: string): Promise<DeadLetterPlace[]>;
  /** A place for one resend within the partner's resends of the hour, or when one frees. */
  reserve(partnerId: string, deliveryId: string, now: Date): Promise<Reservation>;
  release(reservationId: string): Promise<void>;
  /**
   * The newest version of each of these policies the partner's callbacks carried, per endpoint: the
   * plan's superseded check, from the log's store rather than callback-requests read for the hour
   * before the delivery was built (every partner's requests of it: on a busy topic, tens of seconds).
   */
  emittedVersions(partnerId: string, policyNumbers: string[]): Promise<EmittedPolicyVersions>;
}

/** The policies of these dead letters. */
export const policiesOf = (letters: DeadLetter[]): string[] => letters.flatMap((l) => (l.policyNumber === null ? [] : [l.policyNumber]));

export class DeliveryResender {
  constructor(
    private readonly store: ResendStore,
    private readonly session: DlqSession,
    private readonly lanes: ReplayLanes,
    private readonly settings: ResendSettings,
  ) {}

  async resend(partnerId: string, deliveryId: string, reason: string, now = new Date()): Promise<Resent> {
    const state = await this.store.deliveryStateOf(partnerId, deliveryId);
    if (!state) throw new NotFoundError('delivery', 'no delivery with that id');
    if (state === 'superseded') {
      throw new Refusal(
        ErrorCodes.CONFLICT,
        'superseded: a newer status of this policy was delivered to this endpoint first, so it is not sent again',
      );
    }
    const letters = await this.store.callbackDeadLettersOf(partnerId, deliveryId);
    if (state !== 'dead_lettered' || letters.length === 0) {
      throw new Refusal(ErrorCodes.CONFLICT, `only a dead-lettered delivery can be resent; this one is ${state}`);
    }
    const reservation = await this.store.reserve(partnerId, deliveryId, now);
    if (!reservation.reserved) {
      throw new Refusal(
        ErrorCodes.TOO_MANY_REQUESTS,
        `at most ${this.settings.perHour} resends an hour; retry in ${reservation.retryAfterSeconds} seconds`,
        { retryAfterSeconds: reservation.retryAfterSeconds },
      );
    }
    try {
      return await this.lanes.run('callback', () => this.replay(partnerId, deliveryId, reason, letters));
    } catch (error) {
      // The partner pays only for resends that happened: a refused or failed one gives its place back.
      // Should that fail too, the place is lost until it leaves the hour; the refusal is what to answer.
      await this.store.release(reservation.reservationId).catch(() => undefined);
      throw error;
    }
  }

  private async replay(partnerId: string, deliveryId: string, reason: string, letters: DeadLetterPlace[]): Promise<Resent> {
    const oldest = Math.min(...letters.map((l) => l.dead_lettered_at.getTime()));
    const selection = {
      deliveryIds: [deliveryId],
      // Its dead letters where the log says they are; callback-dlq is read from a minute before the oldest, not whole.
      offsets: letters.map((l) => ({ partition: l.source_partition, from: BigInt(l.source_offset), to: BigInt(l.source_offset) })),
      since: oldest - 60_000,
    };
    const actor = { type: 'partner' as const, id: partnerId, name: partnerOperator(partnerId) };
    const request = {
      ...{ selection, reason, actor, force: false, ratePerSecond: 10 },
      emittedVersions: (found: DeadLetter[]) => this.store.emittedVersions(partnerId, policiesOf(found)),
    };
    const replay = await DeadLetterReplay.prepare(this.session, request, { dryRun: false });
    try {
      const planned = chosen(replay.prepared.decisions);
      if (planned.outcome !== 'replayed') throw refusal(planned);
      const result = await replay.execute();
      const done = chosen(result.decisions);
      if (done.outcome !== 'replayed')
        throw new Refusal(ErrorCodes.SERVICE_UNAVAILABLE, `not resent: ${done.detail}; retry later`, { retryAfterSeconds: 5 });
      return { delivery_id: deliveryId, replay_id: replay.prepared.run.replayId, replay_count: done.replayCount };
    } finally {
      await replay.close();
    }
  }
}

/** Of a delivery's dead letters, the one being replayed, else the newest's decision. */
function chosen(decisions: readonly ReplayDecision[]): ReplayDecision {
  const replayed = decisions.find((d) => d.outcome === 'replayed');
  const newest = decisions.at(-1);
  if (!replayed && !newest) throw new Refusal(ErrorCodes.CONFLICT, 'no dead letter of this delivery is left to resend');
  return replayed ?? newest!;
}

function refusal(decision: ReplayDecision): Refusal {
  switch (decision.outcome) {
    case 'skipped-superseded':
      return new Refusal(ErrorCodes.CONFLICT, `superseded: ${decision.detail}`);
    case 'skipped-already-replayed':
      return new Refusal(ErrorCodes.CONFLICT, `already resent and not dead-lettered again since: ${decision.detail}`);
    case 'skipped-replay-limit':
      return new Refusal(
        ErrorCodes.CONFLICT,
        `resent ${decision.replayCount} times already, the most allowed; the insurer's operators can still replay it`,
      );
    default:
      return new Refusal(ErrorCodes.SERVICE_UNAVAILABLE, `not resent: ${decision.detail}; retry later`, { retryAfterSeconds: 5 });
  }
}
