import type { AcceptedWebhookRecord, Claim, Completion, LedgerRecord } from './ledger-records';
import { ledgerKey } from './ledger-records';

/** What the ledger knows of one key. */
export interface Entry {
  winner?: Claim;
  /** The winner replaced an abandoned claim (so partner-events must be read up to now before it writes). */
  winnerTookOver?: boolean;
  completion?: Completion;
  /** For expiry: when the key was first seen. */
  since: number;
}

/**
 * The ledger's state in memory and the rules every replica applies to the same records in the
 * same order, so all agree on each key without talking to each other (see IdempotencyLedger):
 * - a claim wins if the key has no winner, or if the current winner is older than the claim TTL
 *   (measured between the two claims' own timestamps) and has not completed;
 * - the first partner event of a key is its completion; later claims do not change it.
 * Also who waits for what: a claim to come back, a key to complete.
 */
export class LedgerEntries {
  private readonly entries = new Map<string, Entry>();
  private readonly claimWaiters = new Map<string, () => void>();
  private readonly completionWaiters = new Map<string, Set<() => void>>();

  constructor(private readonly claimTtlMs: number) {}

  get size(): number {
    return this.entries.size;
  }

  entry(key: string): Readonly<Entry> | undefined {
    return this.entries.get(key);
  }

  /** A claims record read from the topic. */
  applyClaim(record: LedgerRecord): void {
    if (record.state === 'CLAIMED') {
      const entry = this.entryOf(ledgerKey(record.partner_id, record.request_id), record.claimed_at);
      const claim: Claim = {
        claimId: record.claim_id,
        fingerprint: record.payload_fingerprint,
        instance: record.claimant_instance,
        claimedAt: record.claimed_at,
      };
      if (!entry.completion && (!entry.winner || claim.claimedAt - entry.winner.claimedAt > this.claimTtlMs)) {
        entry.winnerTookOver = entry.winner !== undefined;
        entry.winner = claim;
      }
    }
    // Records of the former design (COMPLETED entries) are read and ignored: partner-events holds the completions.
    this.claimWaiters.get(record.claim_id)?.();
    this.claimWaiters.delete(record.claim_id);
  }

  /** A partner event: with a request_id, it completes its key (the first one does). */
  applyAccepted(record: AcceptedWebhookRecord): void {
    if (record.request_id === null) return;
    const key = ledgerKey(record.partner_id, record.request_id);
    const entry = this.entryOf(key, record.received_at);
    if (entry.completion) return;
    entry.completion = {
      fingerprint: record.payload_fingerprint,
      requestId: record.request_id,
      transactionNumber: record.transaction_number,
      transactionType: record.transaction_type,
      completedAt: record.received_at,
    };
    entry.winner = undefined;
    const waiters = this.completionWaiters.get(key);
    if (waiters) for (const wake of [...waiters]) wake();
  }

  /** Resolves once the claim `claimId` has been applied (so the winner of its key is known), or rejects after `timeoutMs`. */
  waitForClaim(claimId: string, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.claimWaiters.delete(claimId);
        reject(new Error('the claim did not come back from the ledger in time'));
      }, timeoutMs);
      this.claimWaiters.set(claimId, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Resolves with the key's completion once applied, or undefined after `timeoutMs`. */
  waitForCompletion(key: string, timeoutMs: number): Promise<Completion | undefined> {
    const done = this.entries.get(key)?.completion;
    if (done) return Promise.resolve(done);
    return new Promise((resolve) => {
      const waiters = this.completionWaiters.get(key) ?? new Set();
      this.completionWaiters.set(key, waiters);
      const finish = () => {
        clearTimeout(timer);
        waiters.delete(finish);
        if (waiters.size === 0) this.completionWaiters.delete(key);
        resolve(this.entries.get(key)?.completion);
      };
      const timer = setTimeout(finish, timeoutMs);
      waiters.add(finish);
    });
  }

  /** Forgets keys first seen before `cutoff` (none that a request waits on); returns how many. */
  forgetBefore(cutoff: number): number {
    let removed = 0;
    for (const [key, entry] of this.entries) {
      if (entry.since < cutoff && !this.completionWaiters.has(key)) {
        this.entries.delete(key);
        removed += 1;
      }
    }
    return removed;
  }

  private entryOf(key: string, since: number): Entry {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { since };
      this.entries.set(key, entry);
    }
    return entry;
  }
}
