/*
 * Which generation of each projected topic the projection reads. Rows keyed by a record's position
 * (attempts, dead letters, refused webhooks, webhook replays) would otherwise meet the rows of a
 * topic that was deleted and created again (a wiped stack under a kept log, a topic recreated in
 * production): its offsets start at 0 again, and the new records would be skipped as already
 * projected. Kafka names each topic it creates with a new topic id (KIP-516); projected_topics keeps
 * the id each topic had when its rows were written and a generation number, and a different id for
 * the same name is a new generation:
 *   - a warning is logged and hookstream_delivery_log_topic_resets_total counts it;
 *   - the new topic's records are written under the new generation, so they are new rows, and the
 *     rows of the old generation stay as history (the old positions are forgotten, not the rows);
 *   - facts keyed by their own ids (a delivery, a webhook, a document, a partner, an audit entry) are
 *     not position-keyed: a new record with an id already projected meets that row and updates it
 *     as a repeated record would (a delivery's state is recomputed from the attempts of every generation).
 * The ids are compared at start, every so often while the log runs (projection.ts: librdkafka keeps
 * a running consumer at its old position on the new topic, waiting there for records that reached
 * offsets it has passed; the projection moves it to the new topic's start), and whenever a
 * partition's offsets go backwards in this process (a batch read again after a failure: one
 * metadata request that finds the same id).
 */
import type { Kafka } from '@hookstream/kafka';
import type { Logger } from '@hookstream/runtime';
import type { DeliveryLogDb } from '../tables';
import type { DeliveryLogMetrics } from '../../../metrics';

export interface TopicGenerationsOptions {
  kafka: Kafka;
  db: DeliveryLogDb;
  logger: Logger;
  metrics: Pick<DeliveryLogMetrics, 'topicResets'>;
  /** Real topic name → logical name, of every topic read. */
  topics: Map<string, string>;
  now?: () => Date;
}

export class TopicGenerations {
  /** Real topic name → its generation now. */
  private readonly current = new Map<string, number>();
  /** "topic:partition" → the next offset after the highest one this process has seen there. */
  private readonly next = new Map<string, bigint>();
  private readonly now: () => Date;

  constructor(private readonly options: TopicGenerationsOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /** Compares every topic's id with the one recorded; resolves with the (real) topics that were created again. */
  check(): Promise<string[]> {
    return this.refresh([...this.options.topics.keys()]);
  }

  /**
   * The generation to write a batch of `topic`'s `partition` under, its first record at `firstOffset`.
   * Checks the topic's id again first when the partition's offsets went back.
   */
  async generationOf(topic: string, partition: number, firstOffset: string, lastOffset: string): Promise<number> {
    const key = `${topic}:${partition}`;
    const seen = this.next.get(key);
    if (seen !== undefined && BigInt(firstOffset) < seen) await this.refresh([topic]);
    this.next.set(key, BigInt(lastOffset) + 1n);
    return this.current.get(topic) ?? 0;
  }

  private async refresh(topics: string[]): Promise<string[]> {
    const admin = this.options.kafka.admin();
    await admin.connect();
    let metadata;
    try {
      metadata = await admin.fetchTopicMetadata({ topics });
    } finally {
      await admin.disconnect();
    }
    const changed: string[] = [];
    for (const { name, topicId } of metadata) {
      const logical = this.options.topics.get(name) ?? name;
      if (!topicId) {
        this.options.logger.warn({ topic: logical }, 'the cluster gives no topic id: a recreated topic would not be noticed');
        continue;
      }
      const generation = await this.record(logical, topicId);
      if (this.current.has(name) && this.current.get(name) !== generation) changed.push(name);
      this.current.set(name, generation);
    }
    return changed;
  }

  /** The generation of `topic` with id `topicId`, a new one when the recorded id differs. */
  private record(topic: string, topicId: string): Promise<number> {
    return this.options.db.transaction().execute(async (trx) => {
      // The first sight of a topic (a new store, or one from before migration 0009) is generation 0, the rows it may hold.
      await trx
        .insertInto('projected_topics')
        .values({ topic, topic_id: topicId, generation: 0, seen_at: this.now() })
        .onConflict((oc) => oc.column('topic').doNothing())
        .execute();
      // Locked: replicas that notice the same reset together bump the generation once.
      const known = await trx.selectFrom('projected_topics').selectAll().where('topic', '=', topic).forUpdate().executeTakeFirstOrThrow();
      if (known.topic_id === topicId) return known.generation;
      const generation = known.generation + 1;
      await trx
        .updateTable('projected_topics')
        .set({ topic_id: topicId, generation, seen_at: this.now() })
        .where('topic', '=', topic)
        .execute();
      this.options.metrics.topicResets.inc({ topic });
      this.options.logger.warn(
        { topic, previousTopicId: known.topic_id, topicId, generation },
        'a projected topic was created again (new topic id): its records are projected as a new generation; earlier rows stay',
      );
      return generation;
    });
  }
}
