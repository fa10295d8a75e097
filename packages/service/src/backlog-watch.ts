import { DeadLetterDepth, deadLetterGauges } from '@hookstream/dead-letters';
import { ConsumerLagMonitor, consumerLagGauges, type GroupTopics } from '@hookstream/kafka';
import { TopicNames } from '@hookstream/kafka';
import type { ServiceRuntime } from './service-runtime';

/** What an SRE watches of a consuming service: the lag of its groups, and its dead letters waiting for a person. */
export interface BacklogWatch {
  /** The service's consumer groups (real names) and the topics each reads. */
  groups: GroupTopics[];
  /** Logical name of the service's dead-letter topic (one of the runtime's topics). */
  deadLetterTopic: string;
}

/**
 * Registers the lag and DLQ gauges (hookstream_consumer_lag_*, hookstream_dlq_*) and starts their
 * monitors in the background: they never gate /readyz, and retry until Kafka answers.
 */
export function watchBacklog(
  runtime: ServiceRuntime<{ CONSUMER_LAG_INTERVAL_MS: number; TOPIC_PREFIX: string }>,
  watch: BacklogWatch,
): void {
  const { kafka, logger, codec, config } = runtime;
  runtime.startMonitor(
    'consumer-lag',
    new ConsumerLagMonitor({
      kafka,
      logger,
      groups: watch.groups,
      gauges: consumerLagGauges(runtime.metrics),
      intervalMs: config.CONSUMER_LAG_INTERVAL_MS,
    }),
  );
  runtime.startMonitor(
    'dlq-depth',
    new DeadLetterDepth({
      kafka,
      codec,
      logger,
      deadLetters: { topic: runtime.topics.get(watch.deadLetterTopic)!.topic, logical: watch.deadLetterTopic },
      auditTopic: `${config.TOPIC_PREFIX}${TopicNames.dlqReplayAudit}`,
      gauges: deadLetterGauges(runtime.metrics),
      refreshMs: config.CONSUMER_LAG_INTERVAL_MS,
    }),
  );
}
