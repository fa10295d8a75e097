/**
 * A processed request: what its answer is rebuilt from (the 2.3 body of the first acceptance, by
 * the same builder as a live answer, so a replay is the same bytes), and its payload's fingerprint.
 */
export interface Completion {
  fingerprint: string;
  requestId: string;
  transactionNumber: string;
  transactionType: 'POLICY' | 'CLAIM';
}

/** A live claim of another request on the same key. */
export interface Claim {
  claimId: string;
  fingerprint: string;
  instance: string;
}

/** A ledger row as IdempotencyLedger reads it. */
export interface RowState {
  claim_id: string;
  fingerprint: string;
  claimant_instance: string;
  completed: boolean;
  transaction_number: string | null;
  transaction_type: 'POLICY' | 'CLAIM' | null;
  /** Epoch ms (server clock). */
  claimed_ms: number;
  unchecked_ms: number;
  /** Not completed and older than the claim TTL. */
  abandoned: boolean;
}

/** The completion recorded on a completed row. */
export function completionOf(requestId: string, row: RowState): Completion {
  return {
    fingerprint: row.fingerprint,
    requestId,
    transactionNumber: row.transaction_number!,
    transactionType: row.transaction_type!,
  };
}
