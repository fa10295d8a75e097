import { randomUUID } from 'node:crypto';
import {
  KafkaUnavailableError,
  RegistryUnavailableError,
  TopicReader,
  describeError,
  isKafkaClientError,
  isRetryable,
  type AvroCodec,
  type RecordWriter,
  type Kafka,
  type Logger,
} from '@hookstream/shared';
import { OutcomeMessages } from '../domain/webhook-outcome';
import { LedgerEntries } from './ledger-entries';
import {
  claimRecord,
  ledgerKey,
  ledgerPartition,
  type AcceptedWebhookRecord,
  type Claim,
  type Completion,
  type LedgerRecord,
} from './ledger-records';

export interface LedgerOptions {
  kafka: Kafka;
  codec: AvroCodec;
  /** The claims topic (ingress-idempotency). */
  topic: string;
  /** partner-events: an accepted webhook with a request_id is that request's completion. */
  partnerEventsTopic: string;
  /**
   * Idempotent producer (acks=all) for claims: a producer of their own, so that a claim never
   * queues behind a batch of partner events (a RecordWriter has one request in flight).
   */
  claimsProducer: RecordWriter;
  /** This replica, named in its claims. */
  instance: string;
  logger: Logger;
  /** A claim not completed within this long may be taken over by a later claim. */
  claimTtlMs: number;
  /** How long a key is remembered. */
  retentionMs: number;
  /** The ledger is current while both topics were fetched within this long. Default 2,000 ms. */
  currentWithinMs?: number;
}

/** How often a claim on its way checks that the ledger is still ready (its readers' statistics' interval). */
const READY_CHECK_MS = 250;

/** What the ledger knows of a key now. */
export type KeyState = { kind: 'completed'; completion: Completion } | { kind: 'claimed'; claim: Claim } | { kind: 'free' };

/** How a claim went: won (write the event), lost (another claim or a completion came first), or not decidable now. */
export type ClaimResult = { kind: 'won' } | { kind: 'lost' } | { kind: 'unavailable'; message: string };

/**
 * The request_id ledger, materialised by every ingress replica (whole-topic readers without a
 * consumer group, committing nothing: see TopicReader) from two topics:
 * - claims, on the compacted `ingress-idempotency` topic (Kafka key `C:<partner>/<request_id>`);
 * - completions, which are the accepted webhooks themselves on `partner-events`: a record there
 *   with a request_id completes that request, and its answer is rebuilt from it.
 * Every replica applies the same records with the same rules (LedgerEntries), so all agree.
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
 * first reads partner-events up to its current end, so an event written before the takeover is
 * always seen. A first claim needs no check: an event is only written by the winner of an
 * earlier claim, which it would have seen.
 *
 * Memory: one entry per key seen within the retention: key, fingerprint and the answer's fields,
 * about 0.5 KB. That is retention × rate × 0.5 KB: 24 h at 10 requests/s with request_ids ≈
 * 860,000 entries ≈ 430 MB; lower IDEMPOTENCY_RETENTION_HOURS for more traffic. The retention
 * must not exceed partner-events' own (7 days by default).
 */
export class IdempotencyLedger {
  private readonly entries: LedgerEntries;
  private readers: TopicReader[] = [];
  private claims: TopicReader | undefined;
  private events: TopicReader | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private isLoaded = false;
  private readonly logger: Logger;

  constructor(private readonly options: LedgerOptions) {
    this.logger = options.logger.child({ module: 'idempotency-ledger' });
    this.entries = new LedgerEntries(options.claimTtlMs);
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

  get size(): number {
    return this.entries.size;
  }

  /** The key's state: completed, claimed by a live claim (younger than the claim TTL at `now`), or free to claim. */
  stateOf(key: string, now: number): KeyState {
    const entry = this.entries.entry(key);
    if (entry?.completion) return { kind: 'completed', completion: entry.completion };
    const winner = entry?.winner;
    return winner && now - winner.claimedAt <= this.options.claimTtlMs ? { kind: 'claimed', claim: winner } : { kind: 'free' };
  }

  /** Resolves with the key's completion once applied, or undefined after `timeoutMs`. */
  waitForCompletion(key: string, timeoutMs: number): Promise<Completion | undefined> {
    return this.entries.waitForCompletion(key, timeoutMs);
  }

  /**
   * Claims (partner, request_id): writes a claim and reads it back; the first live claim in log
   * order wins on every replica. A claim that took over an abandoned one first reads partner-events
   * to its end, and loses if the abandoned claimant's event is there after all.
   */
  async claim(partnerId: string, requestId: string, fingerprint: string, timeoutMs: number, now = Date.now()): Promise<ClaimResult> {
    const key = ledgerKey(partnerId, requestId);
    const claim: Claim = { claimId: randomUUID(), fingerprint, instance: this.options.instance, claimedAt: now };
    let value: Buffer;
    try {
      value = await this.options.codec.encode(this.options.topic, claimRecord(partnerId, requestId, claim, this.options.retentionMs));
    } catch (error) {
      if (error instanceof RegistryUnavailableError || isRetryable(error))
        return { kind: 'unavailable', message: OutcomeMessages.registryUnavailable };
      throw error;
    }
    const readBack = this.entries.waitForClaim(claim.claimId, timeoutMs);
    readBack.catch(() => undefined); // observed below; never an unhandled rejection
    try {
      const partition = ledgerPartition(key, this.claims?.partitionCount ?? 1);
      await this.options.claimsProducer.send({ topic: this.options.topic, partition, key: `C:${key}`, value });
    } catch (error) {
      // Any failed write is "not stored, retry later" for a partner, whatever the broker said.
      if (error instanceof KafkaUnavailableError || isRetryable(error) || isKafkaClientError(error))
        return { kind: 'unavailable', message: OutcomeMessages.kafkaUnavailable };
      throw error;
    }
    try {
      await this.whileReady(readBack);
    } catch (error) {
      return { kind: 'unavailable', message: OutcomeMessages.claimUnconfirmed((error as Error).message) };
    }
    const entry = this.entries.entry(key);
    if (entry?.winner?.claimId !== claim.claimId) return { kind: 'lost' };
    if (entry.winnerTookOver) {
      // The abandoned claimant may have written its event after all: see it before writing again.
      try {
        await this.events!.caughtUp(timeoutMs);
      } catch (error) {
        return { kind: 'unavailable', message: OutcomeMessages.ledgerUnchecked((error as Error).message) };
      }
      if (this.entries.entry(key)?.completion) return { kind: 'lost' };
    }
    return { kind: 'won' };
  }

  /**
   * `waiting`, or a rejection as soon as the ledger stops being ready: a claim cannot come back
   * while its reader has lost the broker, and the partner is answered then, not at the timeout.
   */
  private whileReady(waiting: Promise<void>): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = setInterval(() => {
        if (!this.ready) reject(new Error('the ledger lost its broker while the claim was on its way'));
      }, READY_CHECK_MS);
      waiting.then(resolve, reject).finally(() => clearInterval(check));
    });
  }

  /** Reads claims and recent partner events to their end (ready), then keeps applying new records until `stop()`. */
  async start(): Promise<void> {
    const { kafka, logger, topic, partnerEventsTopic, retentionMs } = this.options;
    const each = (apply: (value: Buffer) => Promise<void>) => async (messages: Array<{ value: Buffer | null }>) => {
      for (const message of messages) if (message.value) await apply(message.value);
    };
    this.claims = new TopicReader({
      kafka,
      logger,
      topic,
      apply: each(async (value) => {
        const record = await this.decode<LedgerRecord>(value, topic);
        if (record) this.entries.applyClaim(record);
      }),
    });
    this.events = new TopicReader({
      kafka,
      logger,
      topic: partnerEventsTopic,
      fromTimestamp: Date.now() - retentionMs,
      apply: each(async (value) => {
        const record = await this.decode<AcceptedWebhookRecord>(value, partnerEventsTopic);
        if (record) this.entries.applyAccepted(record);
      }),
    });
    this.readers = [this.claims, this.events];
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
    await Promise.all(this.readers.map((reader) => reader.start()));
    this.isLoaded = true;
    this.logger.info({ keys: this.entries.size }, 'idempotency ledger loaded');
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

  /** Forgets keys older than the retention. */
  private sweep(now = Date.now()): void {
    const removed = this.entries.forgetBefore(now - this.options.retentionMs);
    if (removed > 0) this.logger.debug({ removed, keys: this.entries.size }, 'expired ledger keys');
  }
}
