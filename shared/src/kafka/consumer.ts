import type { Consumer, ConsumerConfig, ConsumerRunConfig, Kafka } from 'kafkajs';
import type { Logger } from 'pino';

export interface ManagedConsumerOptions {
  kafka: Kafka;
  logger: Logger;
  /** kafkajs consumer settings; groupId is required. */
  config: ConsumerConfig;
  topics: string[];
  /** Read from the beginning when the group has no committed offset. Default false. */
  fromBeginning?: boolean;
  run: ConsumerRunConfig;
}

/**
 * A consumer that is connected, subscribed and running when this resolves, logs (and counts on
 * kafkajs to restart) crashes, and is stopped by `disconnect()`: kafkajs finishes the batch in
 * hand and, with autoCommit, commits what was processed before leaving the group.
 */
export async function startConsumer(options: ManagedConsumerOptions): Promise<Consumer> {
  const logger = options.logger.child({ module: 'consumer', groupId: options.config.groupId });
  const consumer = options.kafka.consumer(options.config);
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    logger.error({ err: payload.error.message, restart: payload.restart }, 'consumer crashed');
  });
  await consumer.connect();
  for (const topic of options.topics) await consumer.subscribe({ topic, fromBeginning: options.fromBeginning ?? false });
  await consumer.run(options.run);
  return consumer;
}
