import { createHash, randomUUID } from 'node:crypto';
import {
  CatchUpTracker,
  describeError,
  endOffsets,
  startConsumer,
  type AvroCodec,
  type Consumer,
  type Kafka,
  type Logger,
} from '@hookstream/shared';

/** A claim to process one (partner, request_id): the first live claim in log order wins. */
export interface Claim {
  claimId: string;
  fingerprint: string;
  instance: string;
  claimedAt: number;
}

/** The stored outcome of a processed request. */
export interface Completion {
  claimId: string;
  fingerprint: string;
  responseStatus: number;
  responseBody: string;
  completedAt: number;
}

interface Entry {
  winner?: Claim;
  completion?: Completion;
  /** For expiry: when the key was first seen. */
  since: number;
}

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

export interface LedgerOptions {
  kafka: Kafka;
  codec: AvroCodec;
  topic: string;
  logger: Logger;
  owner: string;
  /** A claim not completed within this long may be taken over by a later claim. */
  claimTtlMs: number;
  /** How long a key is remembered. */
  retentionMs: number;
}

/** The logical ledger key of a request: partner ids are slugs without "/", so this splits unambiguously. */
export function ledgerKey(partnerId: string, requestId: string): string {
  return `${partnerId}/${requestId}`;
}

/**
 * Claims and completions of one key share a partition, chosen here rather than by the Kafka
 * key, because they are written under two Kafka keys (`C:` claim, `D:` done): compaction keeps
 * the newest record per Kafka key, and a late losing claim must never be able to compact the
 * completion away.
 */
export function ledgerPartition(key: string, partitions: number): number {
  return createHash('sha256').update(key).digest().readUInt32BE(0) % partitions;
}

/**
 * The request_id ledger, materialised from the compacted `ingress-idempotency` topic by every
 * ingress replica (a consumer group of its own, read_committed, nothing committed).
 *
 * Replicas agree without talking to each other because they all apply the same records in the
 * same (partition) order with this rule, using only values inside the records:
 * - a claim wins if the key has no winner, or if the current winner is older than the claim TTL
 *   (measured between the two claims' own timestamps) and has not completed;
 * - the first completion of a key is final; later claims and completions do not change it.
 *
 * Memory: one entry per key seen within the retention: key, fingerprint and the stored
 * response body, about 0.5 KB. That is retention × rate × 0.5 KB: 24 h at 10 requests/s with
 * request_ids ≈ 860,000 entries ≈ 430 MB; lower IDEMPOTENCY_RETENTION_HOURS for more traffic.
 */
export class IdempotencyLedger {
  private readonly entries = new Map<string, Entry>();
  private readonly claimWaiters = new Map<string, () => void>();
  private readonly completionWaiters = new Map<string, Set<() => void>>();
  private consumer: Consumer | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private loaded = false;
  private partitionCount = 0;
  private readonly logger: Logger;

  constructor(private readonly options: LedgerOptions) {
    this.logger = options.logger.child({ module: 'idempotency-ledger' });
  }

  get ready(): boolean {
    return this.loaded;
  }

  get partitions(): number {
    return this.partitionCount;
  }

  get size(): number {
    return this.entries.size;
  }

  entry(key: string): Readonly<Entry> | undefined {
    return this.entries.get(key);
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

  /** Claim record value. */
  claimRecord(partnerId: string, requestId: string, claim: Claim): LedgerRecord {
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
      expires_at: claim.claimedAt + this.options.retentionMs,
    };
  }

  /** Completion record value. */
  completionRecord(partnerId: string, requestId: string, claim: Claim, status: number, body: string, now: number): LedgerRecord {
    return {
      ...this.claimRecord(partnerId, requestId, claim),
      state: 'COMPLETED',
      completed_at: now,
      response_status: status,
      response_body: body,
    };
  }

  newClaim(fingerprint: string, instance: string, now = Date.now()): Claim {
    return { claimId: randomUUID(), fingerprint, instance, claimedAt: now };
  }

  /** Reads the ledger to its end (ready), then keeps applying new records until `stop()`. */
  async start(): Promise<void> {
    const { kafka, topic } = this.options;
    const { ends, partitions } = await endOffsets(kafka, topic);
    this.partitionCount = partitions;
    const tracker = new CatchUpTracker(ends);
    this.consumer = await startConsumer({
      kafka,
      logger: this.logger,
      // read_committed: completions are written in transactions; aborted ones must never count.
      config: {
        groupId: `hookstream-ingress-ledger-${this.options.owner}-${randomUUID()}`,
        readUncommitted: false,
        sessionTimeout: 30_000,
        maxWaitTimeInMs: 100,
      },
      topics: [topic],
      fromBeginning: true,
      beforeRun: (consumer) => tracker.attach(consumer),
      run: {
        autoCommit: false,
        partitionsConsumedConcurrently: Math.max(1, partitions),
        eachBatch: async ({ batch }) => {
          for (const message of batch.messages) await this.apply(message.key?.toString('utf8') ?? '', message.value);
        },
      },
    });
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
    await tracker.caughtUp;
    this.loaded = true;
    this.logger.info({ keys: this.entries.size }, 'idempotency ledger loaded');
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    await this.consumer?.disconnect();
  }

  private async apply(kafkaKey: string, value: Buffer | null): Promise<void> {
    if (value === null) return; // tombstones only shrink the topic
    let record: LedgerRecord;
    try {
      record = (await this.options.codec.decode(value, this.options.topic)) as LedgerRecord;
    } catch (error) {
      this.logger.error({ kafkaKey, err: describeError(error) }, 'undecodable ledger record: skipped');
      return;
    }
    const key = ledgerKey(record.partner_id, record.request_id);
    const entry = this.entries.get(key) ?? { since: record.claimed_at };
    this.entries.set(key, entry);
    if (record.state === 'COMPLETED') {
      if (!entry.completion && record.response_status !== null && record.response_body !== null) {
        entry.completion = {
          claimId: record.claim_id,
          fingerprint: record.payload_fingerprint,
          responseStatus: record.response_status,
          responseBody: record.response_body,
          completedAt: record.completed_at ?? record.claimed_at,
        };
        entry.winner = undefined;
        const waiters = this.completionWaiters.get(key);
        if (waiters) for (const wake of [...waiters]) wake();
      }
    } else if (!entry.completion) {
      const claim: Claim = {
        claimId: record.claim_id,
        fingerprint: record.payload_fingerprint,
        instance: record.claimant_instance,
        claimedAt: record.claimed_at,
      };
      if (!entry.winner || claim.claimedAt - entry.winner.claimedAt > this.options.claimTtlMs) entry.winner = claim;
    }
    if (record.state === 'CLAIMED') this.claimWaiters.get(record.claim_id)?.();
    this.claimWaiters.delete(record.claim_id);
  }

  /** Forgets keys older than the retention. */
  private sweep(now = Date.now()): void {
    const cutoff = now - this.options.retentionMs;
    let removed = 0;
    for (const [key, entry] of this.entries) {
      if (entry.since < cutoff && !this.completionWaiters.has(key)) {
        this.entries.delete(key);
        removed += 1;
      }
    }
    if (removed > 0) this.logger.debug({ removed, keys: this.entries.size }, 'expired ledger keys');
  }
}
