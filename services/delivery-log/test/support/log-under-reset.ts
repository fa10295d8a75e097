import { AvroCodec, TopicNames, defaultSchemasDir, topicCatalogue, type Kafka } from '@hookstream/kafka';
import { Registry, createLogger } from '@hookstream/runtime';
import { type InboundRejectionValue } from '@hookstream/contract';
import { DeliveryLogProjection } from '../../src/entry/kafka/projection';
import { createDeliveryLogMetrics } from '../../src/metrics';
import type { DeliveryLogDb } from '../../src/adapters/store/tables';
import { waitFor } from '../../../../test/helpers/infrastructure';
import { attemptOf, callbackRequest } from './callback-facts';

const T0 = Date.parse('2026-11-25T10:00:00Z');
/** The topics a reset is tried on: attempts (deliveries left pending when skipped) and refused webhooks. */
const LOGICAL = [TopicNames.callbackOutcomes, TopicNames.inboundRejections];

/**
 * The delivery log's projection over a store that outlives the Kafka under it (tests of a topic
 * created again, a stack wiped): its records are produced on partition 0, so a new topic's land on
 * the offsets of the old one's.
 */
export class LogUnderReset {
  readonly metrics = createDeliveryLogMetrics(new Registry());
  readonly topics: Map<string, string>;
  private readonly codec: AvroCodec;

  constructor(
    private readonly db: DeliveryLogDb,
    private readonly prefix: string,
    registryUrl: string,
  ) {
    this.codec = new AvroCodec(registryUrl, defaultSchemasDir());
    this.topics = new Map(LOGICAL.map((logical) => [this.realName(logical), logical]));
  }

  static readonly logical = LOGICAL;

  realName(logical: string): string {
    return topicCatalogue({ prefix: this.prefix }).find((t) => t.name === logical)!.topic;
  }

  /** Runs the projection on `kafka` while `during` runs. */
  async project<T>(kafka: Kafka, during: () => Promise<T>): Promise<T> {
    const projection = new DeliveryLogProjection({
      kafka,
      codec: this.codec,
      db: this.db,
      logger: createLogger({ service: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
      metrics: this.metrics,
      groupId: `${this.prefix}delivery-log`,
      session: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500 },
      topics: this.topics,
      concurrency: 1,
      // A topic created under the running projection is noticed within a second.
      topicCheckIntervalMs: 1000,
    });
    await projection.start();
    try {
      return await during();
    } finally {
      await projection.stop();
    }
  }

  /** One failed attempt of each delivery, and one refusal of a webhook of `partner` each, on partition 0. */
  async produce(kafka: Kafka, deliveries: string[], partner: string): Promise<void> {
    await this.codec.registerTopics(topicCatalogue({ prefix: this.prefix }).filter((t) => this.topics.has(t.topic)));
    const outcomes = deliveries.map(
      (id) => attemptOf(callbackRequest(id, T0), T0 + 1000, { outcome: 'FAILED_ATTEMPT', httpStatus: 500 }).outcome,
    );
    const rejections = deliveries.map((id): InboundRejectionValue => ({
      rejection_id: `r-${id}`,
      partner_id: partner,
      received_at: T0,
      http_status: 400,
      error_code: 'INVALID_PAYLOAD',
      message: 'refused',
      fields: [],
      request_id: null,
      transaction_number: null,
      payload_fingerprint: null,
      ingress_instance: null,
    }));
    const producer = kafka.producer();
    await producer.connect();
    try {
      for (const [logical, values] of [
        [TopicNames.callbackOutcomes, outcomes],
        [TopicNames.inboundRejections, rejections],
      ] as const) {
        const topic = this.realName(logical);
        const messages = await Promise.all(
          values.map(async (value) => ({ partition: 0, key: null, value: await this.codec.encode(topic, value) })),
        );
        await producer.send({ topic, messages });
      }
    } finally {
      await producer.disconnect();
    }
  }

  /** Waits until the store holds `n` attempts and `n` refused webhooks. */
  async waitForRows(n: number, what: string, timeoutMs = 30_000): Promise<void> {
    const count = async (table: 'delivery_attempts' | 'rejected_webhooks') =>
      (
        await this.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    await waitFor(async () => (await count('delivery_attempts')) === n && (await count('rejected_webhooks')) === n, what, timeoutMs);
  }
}
