import { createKafkaClient, createLogger, describeError, withTimeout } from '@hookstream/shared';
import type { StackSettings } from './stack';

export interface EndpointHealth {
  ok: boolean;
  detail: string;
}

/** Whether Kafka answers metadata at `brokers` (a quick check, not the full readiness probe). */
export async function checkKafka(brokers: string): Promise<EndpointHealth> {
  const kafka = createKafkaClient({
    brokers: brokers.split(','),
    clientId: 'hookstream-status',
    logger: createLogger({ service: 'stack', level: 'silent' }),
    connectionTimeoutMs: 1500,
    requestTimeoutMs: 3000,
  });
  const admin = kafka.admin({ retry: { retries: 0 } });
  try {
    const cluster = await withTimeout(
      (async () => {
        await admin.connect();
        return admin.describeCluster();
      })(),
      5000,
      'timed out',
    );
    return { ok: true, detail: `cluster ${cluster.clusterId}, ${cluster.brokers.length} broker(s), controller ${cluster.controller}` };
  } catch (error) {
    return { ok: false, detail: describeError(error) };
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** Whether the registry lists subjects at `url`. */
export async function checkRegistry(url: string): Promise<EndpointHealth> {
  try {
    const response = await fetch(`${url}/subjects`, { signal: AbortSignal.timeout(3000) });
    if (!response.ok) return { ok: false, detail: `HTTP ${response.status}` };
    const subjects = (await response.json()) as unknown[];
    return { ok: true, detail: `${subjects.length} subject(s)` };
  } catch (error) {
    return { ok: false, detail: describeError(error) };
  }
}

export async function checkStack(settings: StackSettings): Promise<{ kafka: EndpointHealth; registry: EndpointHealth }> {
  const [kafka, registry] = await Promise.all([checkKafka(settings.KAFKA_BROKERS), checkRegistry(settings.SCHEMA_REGISTRY_URL)]);
  return { kafka, registry };
}
