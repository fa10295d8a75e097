/*
 * Retry now: one more attempt of a failing delivery, at once, under its own delivery id. The log
 * rebuilds the delivery's callback request from its row (every field of it: the exact body, the
 * policy's number, version and status) and puts it back on callback-requests with the trigger
 * RETRY_NOW, together with its audit record (one Kafka transaction). The sender makes one attempt
 * (it goes even while the partner's circuit is open, as its probe; a newer status of the policy still
 * supersedes it); the record already waiting in its retry tier keeps its schedule, and sends nothing
 * once the retry now was delivered. Counted in the partner's hourly resends (the same reservations).
 * Refused, with the reason, unless the delivery is failing, and while another retry now of it is in
 * flight (409: a second press, or twenty at once, sends nothing more): from its acceptance until its
 * outcome is in the log, at most the endpoint's timeout and a margin (adapters/store/retry-now-claims.ts).
 */
import { ErrorCodes, NotFoundError, Refusal } from '@hookstream/errors';
import type { CallbackRequestValue } from '@hookstream/contract';
import type { Actor, AuditedChange, PartnerDirectory } from '@hookstream/partners';
import type { DeliveryState } from '../adapters/store/tables';
import type { Reservation } from '../adapters/store/resend-reservations';
import type { RetryNowClaim } from '../adapters/store/retry-now-claims';

/** A delivery as the log holds it, as far as a retry now needs it. */
export interface RetriableDelivery {
  delivery_id: string;
  partner_id: string;
  endpoint_id: string;
  event_id: string;
  policy_number: string;
  policy_version: number;
  /** Null while its request was not read yet (a row made from an attempt). */
  policy_status: string | null;
  body: string | null;
  created_at: Date;
  state: DeliveryState;
  attempt_count: number;
}

/** What a retry now needs of the log's store (adapters/store/retry-store.ts). */
export interface RetryStore {
  /** The delivery; only the partner's when partnerId is given (undefined for another's, as for none). */
  deliveryOf(deliveryId: string, partnerId: string | undefined): Promise<RetriableDelivery | undefined>;
  /** The delivery's one retry now in flight, holding until `expiresAt` unless its outcome comes first; or the claim in the way. */
  claim(deliveryId: string, attemptsBefore: number, now: Date, expiresAt: Date): Promise<RetryNowClaim>;
  releaseClaim(claimId: string): Promise<void>;
  /** A place within the partner's resends of the hour (the resend's reservations), or when one frees. */
  reserve(partnerId: string, deliveryId: string, now: Date): Promise<Reservation>;
  release(reservationId: string): Promise<void>;
}

/** Writes a callback request asked for by a person and its audit record, in one transaction (adapters/kafka/requested-callbacks.ts). */
export interface RequestedCallbacks {
  /** Resolves with the audit record's id. `attemptsSoFar`: the attempts the delivery has had, so the sender numbers the next. */
  write(request: CallbackRequestValue, attemptsSoFar: number, actor: Actor, change: AuditedChange): Promise<string>;
}

/** How the refusal of a second retry now of a delivery begins (retry-failing-deliveries.ts tells it apart by it). */
export const RETRY_NOW_IN_FLIGHT = 'a retry now of this delivery is in flight';

export interface RetryAccepted {
  delivery_id: string;
  retry_id: string;
}

export class DeliveryRetrier {
  constructor(
    private readonly store: RetryStore,
    private readonly callbacks: RequestedCallbacks,
    /** Resends (and retries now) one partner may make in an hour. */
    private readonly perHour: number,
    /** Longest a retry now of this delivery stays in flight without its outcome: its endpoint's timeout and a margin, ms. */
    private readonly inFlightMs: (delivery: RetriableDelivery) => number,
  ) {}

  /** A retry now by `actor`; `partnerId`: the caller's partner (its own deliveries only), undefined for an operator. */
  async retry(actor: Actor, partnerId: string | undefined, deliveryId: string, reason: string, now = new Date()): Promise<RetryAccepted> {
    const delivery = await this.store.deliveryOf(deliveryId, partnerId);
    if (!delivery) throw new NotFoundError('delivery', 'no delivery with that id');
    refuseUnlessFailing(delivery);
    const expiresAt = new Date(now.getTime() + this.inFlightMs(delivery));
    const claim = await this.store.claim(deliveryId, delivery.attempt_count, now, expiresAt);
    if (!claim.claimed) {
      throw new Refusal(
        ErrorCodes.CONFLICT,
        `${RETRY_NOW_IN_FLIGHT} (accepted at ${claim.claimedAt.toISOString()}): ` +
          `it is not sent twice; retry again once its outcome is in the log, or after ${claim.expiresAt.toISOString()} should none come`,
      );
    }
    const reservation = await this.store.reserve(delivery.partner_id, deliveryId, now);
    if (!reservation.reserved) {
      await this.store.releaseClaim(claim.claimId);
      throw new Refusal(
        ErrorCodes.TOO_MANY_REQUESTS,
        `at most ${this.perHour} resends and retries now an hour; retry in ${reservation.retryAfterSeconds} seconds`,
        { retryAfterSeconds: reservation.retryAfterSeconds },
      );
    }
    try {
      const retryId = await this.callbacks.write(requestOf(delivery), delivery.attempt_count, actor, {
        action: 'delivery.retry-now',
        subject: { type: 'partner', id: delivery.partner_id },
        reason,
        detail: { delivery_id: deliveryId, endpoint_id: delivery.endpoint_id, attempt: delivery.attempt_count + 1 },
      });
      return { delivery_id: deliveryId, retry_id: retryId };
    } catch (error) {
      // Only retries that were written count against the hour and hold the claim; should a release fail
      // too, the place frees with the hour and the claim when it expires.
      await this.store.release(reservation.reservationId).catch(() => undefined);
      await this.store.releaseClaim(claim.claimId).catch(() => undefined);
      throw error;
    }
  }
}

/** The sender's pick-up and the projection's lag, on top of the endpoint's own timeout: how long a retry now may take to be in the log. */
const IN_FLIGHT_MARGIN_MS = 30_000;
/** An endpoint the directory no longer has: the longest timeout an endpoint may have (partner-spec-schema.ts). */
const LONGEST_ENDPOINT_TIMEOUT_MS = 120_000;

/** How long a retry now of this delivery stays in flight without its outcome (DeliveryRetrier's inFlightMs). */
export function retryNowInFlightMs(partners: Pick<PartnerDirectory, 'get'>, delivery: RetriableDelivery): number {
  const endpoint = partners.get(delivery.partner_id)?.callback_endpoints.find((e) => e.endpoint_id === delivery.endpoint_id);
  return (endpoint?.timeout_ms ?? LONGEST_ENDPOINT_TIMEOUT_MS) + IN_FLIGHT_MARGIN_MS;
}

function refuseUnlessFailing(delivery: RetriableDelivery): asserts delivery is RetriableDelivery & { policy_status: string; body: string } {
  switch (delivery.state) {
    case 'failing':
      break;
    case 'superseded':
      throw new Refusal(
        ErrorCodes.CONFLICT,
        'superseded: a newer status of this policy was delivered to this endpoint first, so it is not sent again',
      );
    case 'dead_lettered':
      throw new Refusal(ErrorCodes.CONFLICT, 'only a failing delivery can be retried now; this one is dead-lettered: resend it instead');
    default:
      throw new Refusal(ErrorCodes.CONFLICT, `only a failing delivery can be retried now; this one is ${delivery.state}`);
  }
  if (delivery.body === null || delivery.policy_status === null) {
    throw new Refusal(ErrorCodes.CONFLICT, 'the log has not read this delivery whole yet; retry in a moment');
  }
}

/** The delivery's callback request again, as the policy-status-consumer made it, asked for now. */
function requestOf(d: RetriableDelivery & { policy_status: string; body: string }): CallbackRequestValue {
  return {
    delivery_id: d.delivery_id,
    event_id: d.event_id,
    partner_id: d.partner_id,
    endpoint_id: d.endpoint_id,
    policy_number: d.policy_number,
    policy_version: d.policy_version,
    policy_status: d.policy_status,
    body: d.body,
    created_at: d.created_at.getTime(),
    trigger: 'RETRY_NOW',
  };
}
