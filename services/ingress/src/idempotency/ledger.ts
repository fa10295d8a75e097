import { hash, randomUUID } from 'node:crypto';
import { TopicReader, describeError, type AvroCodec, type Kafka, type Logger } from '@hookstream/shared';

/** A claim to process one (partner, request_id): the first live claim in log order wins. */
export interface Claim {
  claimId: string;
  fingerprint: string;
  instance: string;
  claimedAt: number;
}

/** The stored outcome of a processed request. */
export interface Completion {
  fingerprint: string;
  responseStatus: number;
  responseBody: string;
  completedAt: number;
}

interface Entry {
  winner?: Claim;
  /** The winner replaced an abandoned claim (so partner-events must be read up to now before it writes). */
  winnerTookOver?: boolean;
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

/** The fields of a partner-events record the ledger reads (schemas/partner-event.avsc). */
export interface AcceptedWebhookRecord {
  partner_id: string;
  request_id: string | null;
  transaction_number: string;
  transaction_type: 'POLICY' | 'CLAIM';
  payload_fingerprint: string;
  received_at: number;
}

export interface LedgerOptions {
  kafka: Kafka;
  codec: AvroCodec;
  /** The claims topic (ingress-idempotency). */
  topic: string;
  /** partner-events: an accepted webhook with a request_id is that request's completion. */
  partnerEventsTopic: string;
  /** The response a completed request is answered with again (rebuilt from its record: the same bytes). */
  responseOf: (accepted: AcceptedWebhookRecord) => { status: number; body: string };
  logger: Logger;
  /** A claim not completed within this long may be taken over by a later claim. */
  claimTtlMs: number;
  /** How long a key is remembered. */
  retentionMs: number;
  /** The ledger is current while both topics were fetched within this long. Default 2,000 ms. */
  currentWithinMs?: number;
}

/** The logical ledger key of a request: partner ids are slugs without "/", so this splits unambiguously. */
export function ledgerKey(partnerId: string, requestId: string): string {
  return `${partnerId}/${requestId}`;
}

/** The claims of one key share a partition (the order of claims is what decides the winner). */
export function ledgerPartition(key: string, partitions: number): number {
  return hash('sha256', key, 'buffer').readUInt32BE(0) % partitions;
}

/**
 * The request_id ledger, materialised by every ingress replica (whole-topic readers without a
 * consumer group, committing nothing: see TopicReader) from two topics:
 * - claims, on the compacted `ingress-idempotency` topic (Kafka key `C:<partner>/<request_id>`);
 * - completions, which are the accepted webhooks themselves on `partner-events`: a record there
 *   with a request_id completes that request, and its stored response is rebuilt from it.
 *
 * Replicas agree without talking to each other because they apply the same records with the
 * same rule, using only values inside the records:
 * - a claim wins if the key has no winner, or if the current winner is older than the claim TTL
 *   (measured between the two claims' own timestamps) and has not completed;
 * - the first partner event of a key is its completion; later claims do not change it.
 *
 * Why the partner event is the completion (no separate completion record, no transaction): the
 * winner's one durable write (acks=all) both accepts the webhook and completes the key, so no
 * crash can leave one without the other, and nothing waits on a Kafka transaction. Writing the
 * event and a completion record atomically took a transaction per batch, which capped the
 * ingress at about 1,000 webhooks/s here (bench/ingress).
 *
 * What it costs: every replica reads partner-events, from `now - retention` at start. A claim
 * read back proves that every earlier claim of its key is known, not that their events are
 * (another topic). That matters only when a claim takes over an abandoned one: such a winner
 * first reads partner-events up to its current end (`completionsCaughtUp`), so an event written
 * before the takeover is always seen. A first claim needs no check: an event is only written by
 * the winner of an earlier claim, which it would have seen.
 *
 * Memory: one entry per key seen within the retention: key, fingerprint and the response's
 * fields, about 0.5 KB. That is retention × rate × 0.5 KB: 24 h at 10 requests/s with
 * request_ids ≈ 860,000 entries ≈ 430 MB; lower IDEMPOTENCY_RETENTION_HOURS for more traffic.
 * The retention must not exceed partner-events' own (7 days by default).
 */
export class IdempotencyLedger {
  private readonly entries = new Map<string, Entry>();
  private readonly claimWaiters = new Map<string, () => void>();
  private readonly completionWaiters = new Map<string, Set<() => void>>();
  private readers: TopicReader[] = [];
  private sweeper: NodeJS.Timeout | undefined;
  private isLoaded = false;
  private claims: TopicReader | undefined;
  private events: TopicReader | undefined;
  private readonly logger: Logger;

  constructor(private readonly options: LedgerOptions) {
    this.logger = options.logger.child({ module: 'idempotency-ledger' });
  }

  /**
   * True once loaded and while both topics are being read (fetched within `currentWithinMs`):
   * only then is a claim's answer known in time. While a broker is away this turns false at once.
   */
  get ready(): boolean {
    const within = this.options.currentWithinMs ?? 2_000;
    return this.isLoaded && this.readers.every((reader) => reader.isCurrent(within));
  }

  /** True once both topics were read to their end at start. */
  get loaded(): boolean {
    return this.isLoaded;
  }

  get partitions(): number {
    return this.claims?.partitionCount ?? 0;
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

  newClaim(fingerprint: string, instance: string, now = Date.now()): Claim {
    return { claimId: randomUUID(), fingerprint, instance, claimedAt: now };
  }

  /** Reads claims and recent partner events to their end (ready), then keeps applying new records until `stop()`. */
  async start(): Promise<void> {
    const { kafka, logger, topic, partnerEventsTopic, retentionMs } = this.options;
    const each = (apply: (value: Buffer) => Promise<void>) => async (messages: Array<{ value: Buffer | null }>) => {
      for (const message of messages) if (message.value) await apply(message.value);
    };
    this.claims = new TopicReader({ kafka, logger, topic, apply: each((value) => this.applyClaim(value)) });
    this.events = new TopicReader({
      kafka,
      logger,
      topic: partnerEventsTopic,
      fromTimestamp: Date.now() - retentionMs,
      apply: each((value) => this.applyAccepted(value)),
    });
    this.readers = [this.claims, this.events];
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
    await Promise.all(this.readers.map((reader) => reader.start()));
    this.isLoaded = true;
    this.logger.info({ keys: this.entries.size }, 'idempotency ledger loaded');
  }

  /**
   * Resolves once every partner event written before this call has been applied (the takeover
   * check above); rejects after `timeoutMs`.
   */
  async completionsCaughtUp(timeoutMs: number): Promise<void> {
    if (!this.events) throw new Error('the ledger has not started');
    await this.events.caughtUp(timeoutMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all(this.readers.map((reader) => reader.stop()));
  }

  private async decode<T>(value: Buffer, topic: string): Promise<T | undefined> {
    try {
      return (await this.options.codec.decode(value, topic)) as T;
    } catch (error) {
      this.logger.error({ topic, err: describeError(error) }, 'undecodable record: skipped by the ledger');
      return undefined;
    }
  }

  private entryOf(key: string, since: number): Entry {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { since };
      this.entries.set(key, entry);
    }
    return entry;
  }

  /** A partner event with a request_id completes its key (the first one does). */
  private async applyAccepted(value: Buffer): Promise<void> {
    const record = await this.decode<AcceptedWebhookRecord>(value, this.options.partnerEventsTopic);
    if (!record || record.request_id === null) return;
    const key = ledgerKey(record.partner_id, record.request_id);
    const entry = this.entryOf(key, record.received_at);
    if (entry.completion) return;
    const response = this.options.responseOf(record);
    entry.completion = {
      fingerprint: record.payload_fingerprint,
      responseStatus: response.status,
      responseBody: response.body,
      completedAt: record.received_at,
    };
    entry.winner = undefined;
    const waiters = this.completionWaiters.get(key);
    if (waiters) for (const wake of [...waiters]) wake();
  }

  private async applyClaim(value: Buffer): Promise<void> {
    const record = await this.decode<LedgerRecord>(value, this.options.topic);
    if (!record) return;
    if (record.state === 'CLAIMED') {
      const entry = this.entryOf(ledgerKey(record.partner_id, record.request_id), record.claimed_at);
      const claim: Claim = {
        claimId: record.claim_id,
        fingerprint: record.payload_fingerprint,
        instance: record.claimant_instance,
        claimedAt: record.claimed_at,
      };
      if (!entry.completion && (!entry.winner || claim.claimedAt - entry.winner.claimedAt > this.options.claimTtlMs)) {
        entry.winnerTookOver = entry.winner !== undefined;
        entry.winner = claim;
      }
    }
    // Records of the former design (COMPLETED entries) are read and ignored: partner-events holds the completions.
    this.claimWaiters.get(record.claim_id)?.();
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
