import type { InboundReplayValue } from '@hookstream/contract';
import type { AcceptedWebhook } from './webhook-outcome';

/*
 * A webhook answered from the idempotency ledger (the same request_id and payload as one accepted
 * before), described so the partner can later see that its retry was recognised and not processed
 * twice (inbound-replays, then the delivery log's partner API).
 */

/** What a replay says about the request; the recorder adds its own id and the replica's. */
export type WebhookReplay = Omit<InboundReplayValue, 'replay_id' | 'ingress_instance'>;

/** The replay of `webhook`, received at `receivedAt` with the body whose fingerprint is `fingerprint`. */
export function replayOf(partnerId: string, receivedAt: number, webhook: AcceptedWebhook, fingerprint: string): WebhookReplay {
  return {
    partner_id: partnerId,
    received_at: receivedAt,
    request_id: webhook.requestId,
    transaction_number: webhook.transactionNumber,
    payload_fingerprint: fingerprint,
  };
}
