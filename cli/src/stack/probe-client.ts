import { createKafkaClient, type Kafka } from '@hookstream/kafka';
import { createLogger } from '@hookstream/runtime';

/**
 * A Kafka client for the stack's own checks (readiness while starting, status): no retries, short
 * timeouts and no log of its own, so each attempt ends quickly and a dead broker is seen at once.
 */
export function stackProbeClient(brokers: string[], clientId: string, connectionTimeoutMs = 1000): Kafka {
  return createKafkaClient({
    brokers,
    clientId,
    logger: createLogger({ service: 'stack', level: 'silent' }),
    connectionTimeoutMs,
    requestTimeoutMs: 3000,
    retries: 0,
    kafkaLogLevel: 'nothing',
  });
}
