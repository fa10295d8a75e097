/*
 * Writes what became of each document, once: a partner-documents record (and, after the last
 * retry tier, its dead letter) in a Kafka transaction that is committed only if no record of the
 * same document and replay is on partner-documents, as the table of recorded documents in
 * PostgreSQL says once it caught up. The guarantee and why it holds: docs/documents.md.
 */
import { KafkaUnavailableError, StoreUnavailableError, describeError } from '@hookstream/errors';
import { isStoreUnavailable, sleep, type Logger } from '@hookstream/runtime';
import { type Kafka, type Message, type Producer } from '@hookstream/kafka';
import { recordIdentity, type RecordedDocuments } from '../store/recorded-documents';

/** One document's final write: its record, and its dead letter when it has one. */
export interface DocumentWrite {
  documentId: string;
  replay: number;
  messages: Array<{ topic: string; message: Message }>;
}

export interface DocumentRecorderOptions {
  kafka: Kafka;
  logger: Logger;
  recorded: Pick<RecordedDocuments, 'recordedAmong' | 'add'>;
  /** Resolves once every record committed on partner-documents before the call is in the table (applied-wait.ts). */
  caughtUp: (timeoutMs: number) => Promise<void>;
  /** Transactional ids are `<prefix>-<lane>`; the prefix names the group (TOPIC_PREFIX included). */
  transactionalIdPrefix: string;
}

/** Commits tried per batch before its records are failed (and read again by the consumer). */
const COMMIT_TRIES = 3;
const CATCH_UP_TIMEOUT_MS = 30_000;

/**
 * One lane per partner-events partition (a document's lane is the partition its webhook was read
 * from; a retry carries it in its headers), each with a transactional producer whose id is the
 * lane's, the same in every replica. Opening a lane's producer fences any other holder of the id
 * (a replica that lost the partition, a process paused and back) and aborts what a killed one left
 * open; then it waits until the table of recorded documents is fed up to partner-documents' end,
 * so everything committed under the id before is known. From then on every commit either
 * succeeds, and no one else committed in between, or fails fenced, and the lane opens again; after
 * a commit its identities go into the table at once, so the lane's next check sees them without
 * waiting for the feed (when that insert fails, the lane opens again, and so waits for the feed).
 * So a record is committed only where none with its identity exists: one record per document and
 * replay. Writes queued while a transaction commits go together in the next one. The store down:
 * the batch fails as StoreUnavailableError (retryable), nothing is committed, its records are read
 * again later.
 */
export class DocumentRecorder {
  private readonly lanes = new Map<number, RecordingLane>();
  private stopping = false;

  constructor(private readonly options: DocumentRecorderOptions) {}

  /** Resolves true once written, false when a record of the document and replay existed (nothing written). */
  record(lane: number, write: DocumentWrite): Promise<boolean> {
    if (this.stopping) return Promise.reject(new KafkaUnavailableError('the recorder is stopping'));
    let recording = this.lanes.get(lane);
    if (!recording) this.lanes.set(lane, (recording = new RecordingLane(this.options, `${this.options.transactionalIdPrefix}-${lane}`)));
    return recording.submit(write);
  }

  /**
   * Takes writes again after a stop: the service stops its consumer, and the recorder with it, when
   * a start fails (the store not reachable yet, say) and then starts them again. A recorder left
   * stopped refused every record for good, while the consumer read them again and again.
   */
  start(): void {
    this.stopping = false;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.lanes.values()].map((lane) => lane.close()));
  }
}

interface Pending {
  write: DocumentWrite;
  resolve: (written: boolean) => void;
  reject: (error: unknown) => void;
}

class RecordingLane {
  private producer: Producer | undefined;
  private queue: Pending[] = [];
  private draining: Promise<void> | undefined;
  private readonly logger: Logger;

  constructor(
    private readonly options: DocumentRecorderOptions,
    private readonly transactionalId: string,
  ) {
    this.logger = options.logger.child({ module: 'document-recorder', transactionalId });
  }

  submit(write: DocumentWrite): Promise<boolean> {
    const written = new Promise<boolean>((resolve, reject) => this.queue.push({ write, resolve, reject }));
    this.draining ??= this.drain().finally(() => (this.draining = undefined));
    return written;
  }

  async close(): Promise<void> {
    await this.draining;
    await this.discard();
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) await this.commit(this.queue.splice(0));
  }

  private async commit(batch: Pending[]): Promise<void> {
    for (let tries = 1; ; tries++) {
      try {
        const producer = await this.open();
        const fresh = await this.unrecorded(batch);
        if (fresh.length > 0) {
          await this.transaction(producer, fresh);
          await this.note(fresh);
        }
        for (const pending of batch) pending.resolve(fresh.includes(pending));
        return;
      } catch (error) {
        await this.discard();
        if (tries >= COMMIT_TRIES) {
          const failure = isStoreUnavailable(error)
            ? new StoreUnavailableError(`documents not recorded: ${describeError(error)}`, error)
            : new KafkaUnavailableError(`documents not recorded: ${describeError(error)}`, error);
          for (const pending of batch) pending.reject(failure);
          return;
        }
        this.logger.info({ err: describeError(error), tries }, 'recording transaction failed; opening the lane again');
        await sleep(100 * tries);
      }
    }
  }

  /** The writes of the batch whose identity is not recorded, each identity once (one query). */
  private async unrecorded(batch: Pending[]): Promise<Pending[]> {
    const recorded = await this.options.recorded.recordedAmong(batch.map(({ write }) => write));
    const chosen = new Set<string>();
    return batch.filter(({ write }) => {
      const identity = recordIdentity(write.documentId, write.replay);
      if (recorded.has(identity) || chosen.has(identity)) return false;
      chosen.add(identity);
      return true;
    });
  }

  /**
   * Puts what was just committed into the table. Should that fail, the lane's next check could
   * miss them until the feed applies them: so the lane is opened again, which waits for the feed.
   */
  private async note(fresh: Pending[]): Promise<void> {
    try {
      await this.options.recorded.add(fresh.map(({ write }) => write));
    } catch (error) {
      this.logger.warn({ err: describeError(error) }, 'recorded documents not noted; the lane waits for the feed when it opens again');
      await this.discard();
    }
  }

  private async transaction(producer: Producer, fresh: Pending[]): Promise<void> {
    const byTopic = new Map<string, Message[]>();
    for (const { write } of fresh) {
      for (const { topic, message } of write.messages) byTopic.set(topic, [...(byTopic.get(topic) ?? []), message]);
    }
    const transaction = await producer.transaction();
    try {
      await transaction.sendBatch({ topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })) });
      await transaction.commit();
    } catch (error) {
      await transaction.abort().catch(() => undefined);
      throw error;
    }
  }

  /** The lane's producer; a new one fences the id's other holders, then the table is waited for up to partner-documents' end. */
  private async open(): Promise<Producer> {
    if (this.producer) return this.producer;
    const producer = this.options.kafka.producer({ transactionalId: this.transactionalId });
    try {
      // Opening the producer initialises the transactional id: fences its other holders, aborts what they left open.
      await producer.connect();
      await this.options.caughtUp(CATCH_UP_TIMEOUT_MS);
    } catch (error) {
      await producer.disconnect().catch(() => undefined);
      throw error;
    }
    this.producer = producer;
    return producer;
  }

  private async discard(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    await producer?.disconnect().catch(() => undefined);
  }
}
