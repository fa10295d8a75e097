import { ConsumerLagMonitor, DeadLetterDepth, TopicNames, createServiceRuntime, groupSessionOf, runService } from '@hookstream/shared';
import { configSchema } from './config';
import { PolicyStatusProcessor } from './kafka/policy-status-processor';
import { createPolicyStatusMetrics } from './metrics';

export { configSchema } from './config';

/**
 * Composition root of the policy-status-consumer: policy-status events from core systems in,
 * one callback request per interested partner endpoint out (spec 4.1, 6), exactly once.
 */
export async function main(env: NodeJS.ProcessEnv = process.env) {
  const runtime = await createServiceRuntime({
    service: 'policy-status-consumer',
    configSchema,
    topics: [TopicNames.policyStatus, TopicNames.policyStatusDlq, TopicNames.callbackRequests, TopicNames.partnerConfig],
    env,
  });
  const { config } = runtime;
  const topic = (name: string) => runtime.topics.get(name)!.topic;
  const metrics = createPolicyStatusMetrics(runtime.metrics);
  // A topic prefix (several deployments on one cluster) separates groups and transactional ids too.
  const groupId = `${config.TOPIC_PREFIX}${config.POLICY_CONSUMER_GROUP}`;
  const processor = new PolicyStatusProcessor({
    kafka: runtime.kafka,
    codec: runtime.codec,
    partners: runtime.partners,
    logger: runtime.logger,
    metrics,
    topics: {
      policyStatus: topic(TopicNames.policyStatus),
      callbackRequests: topic(TopicNames.callbackRequests),
      deadLetters: topic(TopicNames.policyStatusDlq),
    },
    groupId,
    session: groupSessionOf(config),
    unknownPartnerGraceMs: config.UNKNOWN_PARTNER_GRACE_MS,
  });
  runtime.startInBackground('policy-status-processor', processor, () => processor.joined);
  // What an SRE watches: the group's lag, and the dead letters waiting for a person.
  const { kafka, logger, codec } = runtime;
  runtime.startMonitor(
    'consumer-lag',
    new ConsumerLagMonitor({
      kafka,
      logger,
      groups: [{ groupId, topics: [topic(TopicNames.policyStatus)] }],
      gauges: metrics.consumerLag,
      intervalMs: config.CONSUMER_LAG_INTERVAL_MS,
    }),
  );
  runtime.startMonitor(
    'dlq-depth',
    new DeadLetterDepth({
      kafka,
      codec,
      logger,
      deadLetters: { topic: topic(TopicNames.policyStatusDlq), logical: TopicNames.policyStatusDlq },
      auditTopic: `${config.TOPIC_PREFIX}${TopicNames.dlqReplayAudit}`,
      gauges: metrics.dlqDepth,
      refreshMs: config.CONSUMER_LAG_INTERVAL_MS,
    }),
  );
  const server = await runtime.listen();
  return { runtime, server, processor };
}

if (require.main === module) runService('policy-status-consumer', () => main());
