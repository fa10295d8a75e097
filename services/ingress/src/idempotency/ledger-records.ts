import { hash } from 'node:crypto';

/**
 * What the idempotency ledger is made of: claims (ingress-idempotency records) and completions
 * (the accepted webhooks on partner-events), and where a key's claims live.
 */

/** A claim to process one (partner, request_id): the first live claim in log order wins. */
export interface Claim {
  claimId: string;
  fingerprint: string;
  instance: string;
  claimedAt: number;
}

/**
 * A processed request: what its answer is rebuilt from (the 2.3 body of the first acceptance, by
 * the same builder as a live answer, so a replay is the same bytes), and its payload's fingerprint.
 */
export interface Completion {
  fingerprint: string;
  requestId: string;
  transactionNumber: string;
  transactionType: 'POLICY' | 'CLAIM';
  completedAt: number;
}

/** A claims record (schemas/ingress-idempotency-entry.avsc). */
export interface LedgerRecord {
  partner_id: string;
  request_id: string;
  state: 'CLAIMED' | 'COMPLETED';
  claim_id: string;
  claimant_instance: string;
  payload_fingerprint: string;
  claimed_at: number;
  completed_at: number | null;
  response_status: number | null;
  response_body: string | null;
  partner_event_offset: number | null;
  expires_at: number;
}

/** The fields of a partner-events record the ledger reads (schemas/partner-event.avsc). */
export interface AcceptedWebhookRecord {
  partner_id: string;
  request_id: string | null;
  transaction_number: string;
  transaction_type: 'POLICY' | 'CLAIM';
  payload_fingerprint: string;
  received_at: number;
}

/** The logical ledger key of a request: partner ids are slugs without "/", so this splits unambiguously. */
export function ledgerKey(partnerId: string, requestId: string): string {
  return `${partnerId}/${requestId}`;
}

/** The claims of one key share a partition (the order of claims is what decides the winner). */
export function ledgerPartition(key: string, partitions: number): number {
  return hash('sha256', key, 'buffer').readUInt32BE(0) % partitions;
}

/** The claims record of `claim`, kept for `retentionMs`. */
export function claimRecord(partnerId: string, requestId: string, claim: Claim, retentionMs: number): LedgerRecord {
  return {
    partner_id: partnerId,
    request_id: requestId,
    state: 'CLAIMED',
    claim_id: claim.claimId,
    claimant_instance: claim.instance,
    payload_fingerprint: claim.fingerprint,
    claimed_at: claim.claimedAt,
    completed_at: null,
    response_status: null,
    response_body: null,
    partner_event_offset: null,
    expires_at: claim.claimedAt + retentionMs,
  };
}
