import type { Logger } from 'pino';
import type { AvroCodec } from './avro/registry-codec';
import { describeError } from '@hookstream/errors';
import type { Kafka } from './client';
import { TopicReader } from './topic-reader';

export interface CompactedViewOptions<T> {
  kafka: Kafka;
  codec: AvroCodec;
  /** Real name of the compacted topic. */
  topic: string;
  logger: Logger;
  /** The value of a decoded record, or undefined when this version cannot use it (kept out of the view). */
  parse: (record: Record<string, unknown>) => T | undefined;
}

/**
 * The latest value of every key of a small compacted topic, in memory, in every replica that
 * needs it: read whole at start (ready once read up to the end seen then), then kept current as
 * changes arrive (within about a second). A TopicReader, so no group and no committed offsets; a
 * null value (tombstone) removes the key; an undecodable record keeps the key's last good value.
 */
export class CompactedView<T> {
  private readonly values = new Map<string, T>();
  private readonly listeners = new Set<(value: T | undefined, key: string) => void>();
  private readonly readyWaiters: Array<() => void> = [];
  private reader: TopicReader | undefined;
  private loaded = false;
  private readonly logger: Logger;

  constructor(private readonly options: CompactedViewOptions<T>) {
    this.logger = options.logger.child({ module: 'compacted-view', topic: options.topic });
  }

  get ready(): boolean {
    return this.loaded;
  }

  get(key: string): T | undefined {
    return this.values.get(key);
  }

  all(): T[] {
    return [...this.values.values()];
  }

  whenReady(): Promise<void> {
    if (this.loaded) return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  /** Called after each applied change (undefined: the key was removed). */
  onChange(listener: (value: T | undefined, key: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the value once `accept` takes it, or undefined after `timeoutMs` (reading one's own write). */
  waitFor(key: string, accept: (value: T) => boolean, timeoutMs: number): Promise<T | undefined> {
    const known = this.values.get(key);
    if ((known !== undefined && accept(known)) || timeoutMs <= 0) return Promise.resolve(known);
    return new Promise((resolve) => {
      const finish = (value: T | undefined) => {
        clearTimeout(timer);
        unsubscribe();
        resolve(value);
      };
      const timer = setTimeout(() => finish(undefined), timeoutMs);
      const unsubscribe = this.onChange((value, changed) => {
        if (changed === key && value !== undefined && accept(value)) finish(value);
      });
    });
  }

  /** Resolves once every record written before this call has been applied; rejects after `timeoutMs`. */
  async caughtUp(timeoutMs: number): Promise<void> {
    if (!this.reader) throw new Error(`the view of ${this.options.topic} is not started`);
    await this.reader.caughtUp(timeoutMs);
  }

  async start(): Promise<void> {
    this.reader = new TopicReader({
      kafka: this.options.kafka,
      logger: this.logger,
      topic: this.options.topic,
      // An idle fetch answers within this, and so does the end-of-partition that tells caughtUp() a
      // transaction's marker was read: a partner change waits for it before deciding (500 ms cost
      // each change about a second). Ten empty fetches a second per process are nothing to a broker.
      maxWaitMs: 100,
      apply: async (messages) => {
        for (const message of messages) await this.apply(message.key?.toString('utf8') ?? '', message.value, message.offset);
      },
    });
    await this.reader.start();
    this.loaded = true;
    for (const wake of this.readyWaiters.splice(0)) wake();
    this.logger.info({ keys: this.values.size }, 'compacted topic loaded');
  }

  async stop(): Promise<void> {
    await this.reader?.stop();
  }

  private async apply(key: string, value: Buffer | null, offset: string): Promise<void> {
    if (!key) {
      this.logger.error({ offset }, 'record without a key: skipped');
      return;
    }
    let parsed: T | undefined;
    if (value !== null) {
      try {
        parsed = this.options.parse((await this.options.codec.decode(value, this.options.topic)) as Record<string, unknown>);
      } catch (error) {
        this.logger.error({ key, offset, err: describeError(error) }, 'undecodable record: kept the previous value');
        return;
      }
      if (parsed === undefined) this.logger.warn({ key, offset }, 'a record this version cannot use: the key is left out');
    }
    if (parsed === undefined) this.values.delete(key);
    else this.values.set(key, parsed);
    for (const listener of this.listeners) listener(parsed, key);
  }
}
