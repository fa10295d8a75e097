// First: tracing starts before anything it instruments loads (tracing.ts).
import { tracing } from './tracing';
import { TopicNames, groupSessionOf } from '@hookstream/kafka';
import { createServiceRuntime, runService, watchBacklog } from '@hookstream/service';
import { PolicyStatusOutputs } from './adapters/kafka/policy-status-outputs';
import { configSchema } from './config';
import { FanOutPolicyEvent } from './domain/fan-out-policy-event';
import { PolicyStatusProcessor } from './entry/kafka/policy-status-processor';
import { PolicyStatusRecords } from './entry/kafka/policy-status-records';
import { createPolicyStatusMetrics } from './metrics';

export { configSchema } from './config';

/**
 * Composition root of the policy-status-consumer: policy-status events from core systems in,
 * one callback request per interested partner endpoint out (spec 4.1, 6), exactly once.
 */
export async function main(env: NodeJS.ProcessEnv = process.env) {
  const runtime = await createServiceRuntime({
    tracing,
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
  const topics = {
    policyStatus: topic(TopicNames.policyStatus),
    callbackRequests: topic(TopicNames.callbackRequests),
    deadLetters: topic(TopicNames.policyStatusDlq),
  };
  const logger = runtime.logger.child({ module: 'policy-status-processor' });
  const fanOut = new FanOutPolicyEvent({
    partners: runtime.partners,
    metrics,
    unknownPartnerGraceMs: config.UNKNOWN_PARTNER_GRACE_MS,
    now: Date.now,
  });
  const processor = new PolicyStatusProcessor({
    kafka: runtime.kafka,
    partners: runtime.partners,
    logger: runtime.logger,
    metrics,
    topics,
    groupId,
    session: groupSessionOf(config),
    recordsFor: (maxWriteBytes) =>
      new PolicyStatusRecords({
        codec: runtime.codec,
        policyStatusTopic: topics.policyStatus,
        fanOut,
        outputs: new PolicyStatusOutputs({ codec: runtime.codec, logger, metrics, topics, maxWriteBytes, now: Date.now }),
      }),
  });
  runtime.startInBackground('policy-status-processor', processor, () => processor.joined);
  watchBacklog(runtime, { groups: [{ groupId, topics: [topic(TopicNames.policyStatus)] }], deadLetterTopic: TopicNames.policyStatusDlq });
  const server = await runtime.listen();
  return { runtime, server, processor };
}

if (require.main === module) runService('policy-status-consumer', () => main());
