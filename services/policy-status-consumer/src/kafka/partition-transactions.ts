// kafkajs until this consumer moves to librdkafka: its transactions commit offsets by group id.
import type { Kafka, Producer } from 'kafkajs';

/**
 * One transactional producer per input partition, its transactional id derived from the group,
 * topic and partition (`<group>-<topic>-<partition>`), the classic fencing scheme for
 * consume-transform-produce: whichever replica owns a partition (after a rebalance, a crash or
 * a restart) initialises the same transactional id, which aborts the previous owner's open
 * transaction at once and fences that owner, should it still be alive, from committing. kafkajs
 * does not send the group generation with its offsets (KIP-447), so a per-replica id would
 * fence nothing and leave a crashed replica's transaction open until it timed out.
 */
export class PartitionTransactions {
  private readonly producers = new Map<number, Promise<Producer>>();

  constructor(
    private readonly kafka: Kafka,
    private readonly transactionalIdPrefix: string,
    private readonly topic: string,
  ) {}

  /** The connected producer for `partition`. */
  producerFor(partition: number): Promise<Producer> {
    let producer = this.producers.get(partition);
    if (!producer) {
      producer = (async () => {
        const created = this.kafka.producer({
          idempotent: true,
          maxInFlightRequests: 1,
          allowAutoTopicCreation: false,
          transactionalId: `${this.transactionalIdPrefix}-${this.topic}-${partition}`,
          // The next transaction often starts while the coordinator still writes the last one's
          // markers (CONCURRENT_TRANSACTIONS, retryable): retry in milliseconds, not the client's
          // 100 ms-and-up, which showed as the p99 of the end-to-end latency.
          retry: { initialRetryTime: 10, maxRetryTime: 2_000, retries: 12 },
        });
        await created.connect();
        return created;
      })();
      producer.catch(() => this.producers.delete(partition));
      this.producers.set(partition, producer);
    }
    return producer;
  }

  /** Drops a producer after a failed transaction: kafkajs can leave one in an unusable state. */
  async discard(partition: number): Promise<void> {
    const producer = this.producers.get(partition);
    this.producers.delete(partition);
    await (await producer?.catch(() => undefined))?.disconnect().catch(() => undefined);
  }

  async disconnect(): Promise<void> {
    const partitions = [...this.producers.keys()];
    await Promise.all(partitions.map((partition) => this.discard(partition)));
  }
}
