/**
 * The ingress when Kafka goes away (spec 4.2: 200 only once durable): a broker of its own is
 * stopped under a running ingress, then started again on the same storage and port.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createKafkaClient, createLogger } from '@hookstream/shared';
import { defaultCacheDir, ensureKafka } from '../../../cli/src/stack/artifacts';
import { requireJava } from '../../../cli/src/stack/java';
import { startBroker } from '../../../cli/src/stack/kafka-broker';
import { stopStackProcess } from '../../../cli/src/stack/processes';
import { startStack, type RunningStack } from '../../../cli/src/stack/stack';
import { uniqueName, waitFor } from '../../../test/helpers/infrastructure';
import { TestPartners, ensureTopics, postWebhook, startIngress, webhook, type RunningIngress } from '../../../test/helpers/ingress';

describe('the ingress during a Kafka outage', () => {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-outage-'));
  let stack: RunningStack | undefined;
  let restartedBroker: number | undefined;
  let ingress: RunningIngress | undefined;

  afterAll(async () => {
    await ingress?.stop();
    if (restartedBroker) await stopStackProcess(restartedBroker, stateDir);
    await stack?.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  test('when the broker stops, then no 200 but a retryable 503 in bounded time; when it is back, requests succeed again without restarting the ingress', async () => {
    stack = await startStack({ stateDir, cacheDir: defaultCacheDir(), ports: 'random' });
    const env = { ...process.env, ...stack.info.settings, ...stack.secrets };
    const prefix = `${uniqueName('outage')}.`;
    await ensureTopics(prefix, env);
    const kafka = createKafkaClient({
      brokers: [stack.info.settings.KAFKA_BROKERS],
      clientId: 'outage-test',
      logger: createLogger({ service: 'test', level: 'silent' }),
    });
    const partners = new TestPartners(kafka, prefix, stack.info.settings.SCHEMA_REGISTRY_URL, env);
    const apiKey = await partners.create('partner-a');
    await partners.close();
    ingress = await startIngress(prefix, { ...stack.info.settings, ...stack.secrets, INGRESS_WRITE_TIMEOUT_MS: '4000' });
    await waitFor(
      async () => (await postWebhook(ingress!.webhookUrl, apiKey, webhook())).status === 200,
      'a first accepted webhook',
      20_000,
    );

    expect(await stopStackProcess(stack.info.processes.kafka, stateDir)).not.toBe('absent');

    for (const body of [webhook(), webhook({ request_id: undefined })]) {
      const started = Date.now();
      const response = await postWebhook(ingress.webhookUrl, apiKey, body);
      expect(response.status).toBe(503);
      expect(response.json).toMatchObject({ status: 'failed', data: null, code: 503, error_code: 'SERVICE_UNAVAILABLE_ERR' });
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(Date.now() - started).toBeLessThan(10_000);
    }
    await waitFor(async () => (await fetch(`${ingress!.url}/readyz`)).status === 503, '/readyz to report Kafka down', 15_000);

    const java = await requireJava(17, 'Kafka');
    const broker = await startBroker({
      java,
      kafkaDir: (await ensureKafka(defaultCacheDir())).dir,
      dir: path.join(stateDir, 'kafka'),
      port: stack.info.ports.kafka,
      controllerPort: stack.info.ports.kafkaController,
    });
    restartedBroker = broker.pid;

    const body = webhook();
    const back = await waitFor(
      async () => {
        const response = await postWebhook(ingress!.webhookUrl, apiKey, body);
        return response.status === 200 ? response : undefined;
      },
      'the ingress to accept webhooks again',
      90_000,
    );
    expect(back.json).toMatchObject({ status: 'success', request_id: body.request_id });
    await waitFor(async () => (await fetch(`${ingress!.url}/readyz`)).status === 200, '/readyz to recover', 30_000);
  }, 240_000);
});
