/*
 * A webhook the ingress answered from its idempotency ledger (the same request_id and payload as
 * one it accepted before: 200 with the first answer, not processed again), as it records it on
 * inbound-replays for the delivery log, so a partner can see that its retry was recognised.
 * Shared because the ingress writes it and the delivery log reads it.
 */

/** An inbound-replays record value (schemas/inbound-replay.avsc). */
export interface InboundReplayValue {
  replay_id: string;
  partner_id: string;
  received_at: number;
  request_id: string;
  transaction_number: string;
  payload_fingerprint: string;
  ingress_instance: string | null;
}
