/**
 * A Kafka outage with nothing else happening: every service backs off rather than spin. The five
 * services run as real processes (compiled code, as deployed) against a single-broker stack of
 * this file's own; the broker is SIGKILLed and stays away while each service's CPU is read from
 * /proc, and each answers /readyz with 503; then it is started again, and every service is ready again. Before the services waited
 * between reconnects, four of them used 37–50 % of a core each for as long as the broker was away,
 * which also slowed the broker's own restart (67–70 s to answer on two cores).
 */
import path from 'node:path';
import { createKafkaClient, waitForKafkaReady } from '@hookstream/kafka';
import { createLogger } from '@hookstream/runtime';
import { cpuSecondsOf, killStackBroker, startTestStack, type TestStack } from './helpers/cluster';
import { uniqueName } from './helpers/infrastructure';
import { REPO_ROOT, runCli, startReadyService, type RunningService } from './helpers/processes';

const SERVICES = ['ingress', 'policy-status-consumer', 'callback-sender', 'document-fetcher', 'delivery-log'] as const;
/** Most CPU a service may use while the broker is away, in cores (it was 0.37–0.50). */
const MOST_CPU_WHILE_AWAY = 0.1;
const WINDOW_MS = 15_000;

let stack: TestStack | undefined;
const services = new Map<string, RunningService>();

beforeAll(async () => {
  stack = await startTestStack(1);
}, 240_000);

afterAll(async () => {
  await Promise.all([...services.values()].map((s) => s.stop('SIGKILL')));
  await stack?.down();
}, 120_000);

test('when the broker is away, then no service spins; once it is back, every service is ready again', async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, ...stack!.env, TOPIC_PREFIX: `${uniqueName('outage')}.`, LOG_LEVEL: 'info' };
  const envWithLog = { ...env, DELIVERY_LOG_DATABASE_URL: env.DATABASE_URL };
  const ensured = await runCli(['topics', 'ensure'], { env: { ...env, TOPIC_PARTITIONS: '3' } });
  expect(ensured.code).toBe(0);
  for (const service of SERVICES) {
    services.set(service, await startReadyService(path.join(REPO_ROOT, 'services', service, 'dist', 'main.js'), envWithLog));
  }

  const broker = killStackBroker(stack!);
  // librdkafka notices at once (the connections are refused); the first reconnects are meant to be quick.
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  const before = new Map([...services].map(([name, s]) => [name, cpuSecondsOf(s.pid)]));
  await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
  const cores = Object.fromEntries(
    [...services].map(([name, s]) => [name, (cpuSecondsOf(s.pid) - before.get(name)!) / (WINDOW_MS / 1000)]),
  );
  process.stdout.write(`CPU while the broker was away (cores): ${JSON.stringify(cores)}\n`);
  // Readiness says so meanwhile: a load balancer or Kubernetes stops sending work to a replica that cannot do it.
  const readiness = Object.fromEntries(
    await Promise.all([...services].map(async ([name, s]) => [name, (await fetch(`${s.opsUrl}/readyz`)).status] as const)),
  );

  const restartedAt = Date.now();
  await broker.restart();
  const logger = createLogger({ service: 'test', level: 'silent' });
  await waitForKafkaReady(createKafkaClient({ brokers: env.KAFKA_BROKERS!.split(','), clientId: 'outage-test', logger }), {
    timeoutMs: 120_000,
  });
  const answeredAfterMs = Date.now() - restartedAt;
  await Promise.all([...services.values()].map((s) => s.untilReady(120_000)));
  process.stdout.write(
    `broker answered ${answeredAfterMs} ms after its restart; every service ready ${Date.now() - restartedAt} ms after\n`,
  );

  expect(readiness).toEqual(Object.fromEntries(SERVICES.map((name) => [name, 503])));
  for (const [name, used] of Object.entries(cores)) expect({ name, used: used <= MOST_CPU_WHILE_AWAY }).toEqual({ name, used: true });
}, 420_000);
