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
