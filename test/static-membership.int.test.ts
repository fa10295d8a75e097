import { spawnService, type RunningService } from './helpers/processes';
import { uniqueName } from './helpers/infrastructure';
import { ensureTopics } from './helpers/ingress';
import { POLICY_CONSUMER_ENTRY } from './helpers/outbound';

/**
 * A replica killed with SIGKILL and started again under the same KAFKA_GROUP_INSTANCE_ID takes its
 * partitions back at once (static membership, KIP-345). Without it the new process waits until the
 * group's coordinator declares the killed one dead, a whole session later: the session here is 45 s,
 * so a restart ready well within it can only be the static path.
 */
describe('static group membership', () => {
  const running: RunningService[] = [];
  afterAll(async () => {
    await Promise.all(running.map((service) => service.stop('SIGKILL')));
  });

  async function start(env: NodeJS.ProcessEnv): Promise<{ service: RunningService; readyMs: number }> {
    const began = Date.now();
    const service = await spawnService(POLICY_CONSUMER_ENTRY, env);
    running.push(service);
    await service.untilReady(90_000).catch((error: Error) => {
      throw new Error(`${error.message}\n${service.output().slice(-3000)}`);
    });
    return { service, readyMs: Date.now() - began };
  }

  it('a replica killed and restarted under its instance id is ready long before the dead session ends', async () => {
    const prefix = `${uniqueName('static')}.`;
    await ensureTopics(prefix);
    const env = {
      ...process.env,
      TOPIC_PREFIX: prefix,
      LOG_LEVEL: 'info',
      KAFKA_SESSION_TIMEOUT_MS: '45000',
      KAFKA_HEARTBEAT_INTERVAL_MS: '1000',
      KAFKA_GROUP_INSTANCE_ID: 'policy-status-consumer-1',
    };
    const first = await start(env);
    await first.service.stop('SIGKILL');
    const second = await start(env);
    console.log(
      `static membership: first start ready in ${first.readyMs} ms; after kill -9, ready in ${second.readyMs} ms (session 45,000 ms)`,
    );
    expect(second.readyMs).toBeLessThan(20_000);
  }, 180_000);
});
