/*
 * The request_id ledger as accepting a webhook uses it (spec 4.2's idempotency table): one entry
 * per (partner, request_id), claimed by the first request, then completed with its answer. Kept in
 * PostgreSQL and shared by every replica (adapters/store/ledger.ts).
 */

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

/** How a claim went; the caller answers a request from anything but `won`. */
export type ClaimResult =
  /** This request holds the key: write the event, then `complete`. */
  | { kind: 'won'; claimId: string }
  /** Answered before. */
  | { kind: 'completed'; completion: Completion }
  /** Another request holds a live claim. */
  | { kind: 'claimed'; claim: Claim }
  /** Another request took the key over between this one's reads: read again. */
  | { kind: 'lost' }
  /** The abandoned claimant's event could not be looked for: not decidable now. */
  | { kind: 'unchecked'; why: string };

/** With the store unavailable, each method throws (StoreUnavailableError): the partner is answered 503. */
export interface RequestIdLedger {
  /** Claims (partner, request_id) for the payload `fingerprint`. */
  claim(partnerId: string, requestId: string, fingerprint: string, timeoutMs: number): Promise<ClaimResult>;
  /** Records the answer of the winning claim `claimId` once its event is durable; false if its claim was taken over meanwhile. */
  complete(partnerId: string, requestId: string, claimId: string, completion: Completion): Promise<boolean>;
  /** The key's completion once recorded, or undefined after `timeoutMs` (or when its row is gone). */
  waitForCompletion(partnerId: string, requestId: string, timeoutMs: number): Promise<Completion | undefined>;
}
