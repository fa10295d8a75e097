/* What the delivery decision (send-callback.ts, requested-attempt.ts) is given: its adapters, as main.ts wires them. */
import { type PartnerDirectory } from '@hookstream/partners';
import { type PartnerLimiter } from '@hookstream/runtime';
import type { PartnerBreakers } from './circuit-breaker';
import type { CallbackRequest, DeliveryOutcome } from './deliver-callback';
import type { SendsInFlight } from './sends-in-flight';

/**
 * The deliveries a retry now or a retry tier's record delivered (adapters/store/delivered-callbacks.ts,
 * in the state store every replica shares). Delivered is for good: a delivery id is one callback.
 */
export interface DeliveredCallbacks {
  /** Whether this delivery was delivered by a retry now or a tier's record; rejects when the store cannot say. */
  wasDelivered(deliveryId: string): Promise<boolean>;
  /** Records that this delivery was delivered at `at`; rejects when the store cannot. */
  recordDelivered(deliveryId: string, at: number): Promise<void>;
}

/** Where the record was read (see sendCallback). */
export interface ReadFrom {
  /** The retry tier the record was read from; undefined for callback-requests. */
  tier?: number;
}

export interface SendCallbackDeps {
  /** Each endpoint's ordering mode (latest-wins unless NONE). */
  partners: Pick<PartnerDirectory, 'get'>;
  /** The newest version emitted per partner, endpoint and policy (latest-wins). */
  versions: {
    /** Whether a newer version than `version` was emitted for this endpoint and policy; rejects when the store cannot say (adapters/store/latest-versions). */
    isSuperseded(partnerId: string, endpointId: string, policyNumber: string, version: number): Promise<boolean>;
  };
  /** The deliveries a retry now or a tier's record delivered: both ask before they send, and record their delivery. */
  delivered: DeliveredCallbacks;
  /** One check-and-send at a time per delivery within this replica (tier records and retries now). */
  sendsInFlight: Pick<SendsInFlight, 'one'>;
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
