/**
 * Where the outbound benches (outbound-e2e, isolation) run: fresh topics under a unique prefix
 * with their schemas registered, partners onboarded with one HMAC_SHA256 endpoint each, and the
 * policy-status-consumer and callback-sender as child processes on those topics.
 */
import { type AvroCodec, TopicNames, type Kafka } from '@hookstream/kafka';
import { prepareBenchStack } from '../support/bench-stack';
import { ServiceProcess } from '../support/service-process';

/** The path of every partner's callback endpoint on the receiver. */
export const CALLBACK_PATH = '/callbacks';

export interface OutboundStack {
  kafka: Kafka;
  codec: AvroCodec;
  /** Real name of a topic, from its logical name. */
  topic: (name: string) => string;
  /** Onboards a partner with one endpoint (HMAC_SHA256 auth), written to partner-config. */
  onboard: (partnerId: string, url: string, timeoutMs?: number) => Promise<void>;
  /** The env the services run with: the local stack's, the topic prefix, loopback allowed. */
  serviceEnv: NodeJS.ProcessEnv;
}

/** Fresh topics under a unique prefix, their schemas registered, and the onboarding step. */
export async function prepareOutboundStack(env: NodeJS.ProcessEnv): Promise<OutboundStack> {
  const { prefix, kafka, codec, topic, onboard } = await prepareBenchStack(env, [TopicNames.policyStatus]);
  return {
    kafka,
    codec,
    topic,
    onboard: async (partnerId, url, timeoutMs = 10_000) => {
      await onboard({
        partner_id: partnerId,
        name: partnerId,
        callback_endpoints: [{ endpoint_id: 'ep-1', url, timeout_ms: timeoutMs }],
        outbound_auth: { method: 'HMAC_SHA256', api_key: `${partnerId}-key`, secret: `${partnerId}-hmac-secret` },
      });
    },
    serviceEnv: { ...env, TOPIC_PREFIX: prefix, SSRF_ALLOW: env.SSRF_ALLOW ?? '127.0.0.0/8' },
  };
}

/** The two outbound services, started side by side. */
export async function startOutboundServices(stack: OutboundStack): Promise<{ consumer: ServiceProcess; sender: ServiceProcess }> {
  const [consumer, sender] = await Promise.all([
    ServiceProcess.start('policy-status-consumer', stack.serviceEnv),
    ServiceProcess.start('callback-sender', stack.serviceEnv),
  ]);
  return { consumer, sender };
}
