/*
 * A partner retries every failing delivery of one of its endpoints now, in one request (issue 46):
 * each through the single retry now (retry-delivery.ts), so each takes its own claim (a delivery
 * whose retry now is in flight is refused, not sent twice) and its own place of the partner's hourly
 * resends, with its own audit record. The oldest first, at most MAX_RETRIED_PER_REQUEST per request:
 * a retried delivery stays failing until its attempt is in the log, and a request made at once after
 * finds each in flight; a bigger backlog is retried again once these attempts are in.
 * A dry run answers what would be retried now (as many as the hour's places left) and writes
 * nothing; it cannot see a retry now in flight, which only the real run finds (and reports).
 * One delivery refused (in flight, no longer failing) is reported, not an error of the whole call;
 * once the hour's places are used up the rest are reported as beyond them, and none is tried.
 */
import { ErrorCodes, NotFoundError, hasErrorCode } from '@hookstream/errors';
import { partnerOperator } from './resend-delivery';
import { RETRY_NOW_IN_FLIGHT, type DeliveryRetrier } from './retry-delivery';

export const MAX_RETRIED_PER_REQUEST = 100;

/** A failing delivery of the endpoint, as the answer names it. */
export interface FailingDelivery {
  delivery_id: string;
  endpoint_id: string;
  policy_number: string;
  created_at: Date;
}

/** What this use case reads of the log's store (adapters/store/failing-deliveries-store.ts). */
export interface FailingDeliveriesStore {
  /** Whether the partner has this endpoint, or had it for a delivery still failing. */
  endpointKnown(partnerId: string, endpointId: string): Promise<boolean>;
  /** The partner's deliveries to this endpoint in state failing (test events never), oldest first, at most `limit`. */
  failingOf(partnerId: string, endpointId: string, limit: number): Promise<FailingDelivery[]>;
  /** How many resends (and retries now) the partner may still make this hour. */
  resendsLeft(partnerId: string, now: Date): Promise<number>;
}

export type NotRetriedReason = 'in_flight' | 'not_failing' | 'hourly_limit';

export interface FailingRetry {
  dry_run: boolean;
  endpoint_id: string;
  /** Failing deliveries of the endpoint this request looked at (at most MAX_RETRIED_PER_REQUEST). */
  selected: number;
  /** More are failing beyond those. */
  more: boolean;
  /** Resends and retries now the hour allows, before this request. */
  resends_left_this_hour: number;
  /** Retried now (a dry run: would be), each with its retry's audit id (null in a dry run). */
  retried: Array<FailingDelivery & { retry_id: string | null }>;
  not_retried: Array<FailingDelivery & { reason: NotRetriedReason; message: string; retry_after_seconds?: number }>;
}

export class FailingDeliveriesRetry {
  constructor(
    private readonly store: FailingDeliveriesStore,
    private readonly retrier: Pick<DeliveryRetrier, 'retry'>,
  ) {}

  async retryAll(
    partnerId: string,
    endpointId: string,
    request: { dryRun: boolean; reason: string },
    now = new Date(),
  ): Promise<FailingRetry> {
    const found = await this.store.failingOf(partnerId, endpointId, MAX_RETRIED_PER_REQUEST + 1);
    if (found.length === 0 && !(await this.store.endpointKnown(partnerId, endpointId))) {
      throw new NotFoundError('endpoint', 'no endpoint with that id');
    }
    const failing = found.slice(0, MAX_RETRIED_PER_REQUEST);
    const left = await this.store.resendsLeft(partnerId, now);
    const answer: FailingRetry = {
      dry_run: request.dryRun,
      endpoint_id: endpointId,
      selected: failing.length,
      more: found.length > failing.length,
      resends_left_this_hour: left,
      retried: [],
      not_retried: [],
    };
    if (request.dryRun) {
      failing.forEach((d, i) =>
        i < left ? answer.retried.push({ ...d, retry_id: null }) : answer.not_retried.push({ ...d, ...hourlyLimit(left) }),
      );
      return answer;
    }
    const actor = { type: 'partner' as const, id: partnerId, name: partnerOperator(partnerId) };
    for (const [i, d] of failing.entries()) {
      try {
        const accepted = await this.retrier.retry(actor, partnerId, d.delivery_id, request.reason, now);
        answer.retried.push({ ...d, retry_id: accepted.retry_id });
      } catch (error) {
        if (hasErrorCode(error, ErrorCodes.TOO_MANY_REQUESTS)) {
          // The hour is used up: none of the rest is tried (each would be refused the same).
          const retryAfter = (error as { retryAfterSeconds?: number }).retryAfterSeconds;
          for (const rest of failing.slice(i)) {
            answer.not_retried.push({
              ...rest,
              ...hourlyLimit(left),
              ...(retryAfter === undefined ? {} : { retry_after_seconds: retryAfter }),
            });
          }
          break;
        }
        // In flight, or no longer failing since it was read (delivered, superseded, dead-lettered): its own refusal.
        if (!hasErrorCode(error, ErrorCodes.CONFLICT) && !hasErrorCode(error, ErrorCodes.ENTITY_NOT_FOUND)) throw error;
        const message = (error as Error).message;
        answer.not_retried.push({ ...d, reason: message.startsWith(RETRY_NOW_IN_FLIGHT) ? 'in_flight' : 'not_failing', message });
      }
    }
    return answer;
  }
}

const hourlyLimit = (left: number) => ({
  reason: 'hourly_limit' as const,
  message: `beyond the resends and retries now left this hour (${left}); retry the endpoint's failing deliveries again later`,
});
