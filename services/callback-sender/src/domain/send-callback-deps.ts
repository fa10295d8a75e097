/* What the delivery decision (send-callback.ts, requested-attempt.ts) is given: its adapters, as main.ts wires them. */
import { type PartnerDirectory } from '@hookstream/partners';
import { type PartnerLimiter } from '@hookstream/runtime';
import type { PartnerBreakers } from './circuit-breaker';
import type { CallbackRequest, DeliveryOutcome } from './deliver-callback';

/** The deliveries a retry now delivered (adapters/store/retry-now-deliveries.ts, in the state store). */
export interface RetryNowDeliveries {
  /** Whether a retry now of this delivery was delivered after `since` (epoch ms); rejects when the store cannot say. */
  deliveredSince(deliveryId: string, since: number): Promise<boolean>;
  /** Records that a retry now of this delivery was delivered at `at`; rejects when the store cannot. */
  recordDelivered(deliveryId: string, at: number): Promise<void>;
}

/** Where the record was read: a retry tier's record says since when it has waited there (see sendCallback). */
export interface ReadFrom {
  /** Epoch ms of the record's last failed attempt, or of its first wait when none failed; undefined when not read from a tier. */
  waitingSince?: number;
}

export interface SendCallbackDeps {
  /** Each endpoint's ordering mode (latest-wins unless NONE). */
  partners: Pick<PartnerDirectory, 'get'>;
  /** The newest version emitted per partner, endpoint and policy (latest-wins). */
  versions: {
    /** Whether a newer version than `version` was emitted for this endpoint and policy; rejects when the store cannot say (adapters/store/latest-versions). */
    isSuperseded(partnerId: string, endpointId: string, policyNumber: string, version: number): Promise<boolean>;
  };
  /** The deliveries a retry now delivered: a tier's record asks before it is sent. */
  retriesNow: RetryNowDeliveries;
  /** Each partner's circuit. */
  breakers: Pick<PartnerBreakers, 'for'>;
  /** Each partner's concurrency limit: an attempt runs in one of its slots. */
  limiter: Pick<PartnerLimiter, 'run'>;
  /** Signs and POSTs one attempt (deliver-callback.ts). */
  deliver: (request: CallbackRequest, attempt: number) => Promise<DeliveryOutcome>;
  retryDelaysMs: readonly number[];
  /** Longest a partner's Retry-After may push a retry out, in ms (and never past the longest tier's delay). */
  maxRetryAfterMs: number;
  now: () => number;
}
