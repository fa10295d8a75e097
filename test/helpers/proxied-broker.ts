import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultCacheDir, ensureKafka, requireJava, startBroker } from '@hookstream/cli/stack';
import { createKafkaClient, waitForKafkaReady } from '@hookstream/kafka';
import { createLogger, freePort } from '@hookstream/runtime';
import { FaultProxy } from './fault-proxy';

/** A broker of a test's own that clients reach only through a FaultProxy. */
export interface ProxiedBroker {
  /** KAFKA_BROKERS for a client: the proxy's address. */
  brokers: string[];
  proxy: FaultProxy;
  stop: () => Promise<void>;
}

/**
 * Starts a single-node broker on free ports in a temporary folder, advertising the proxy's port, and
 * the proxy in front of it; resolves once Kafka serves through the proxy (a group join and a
 * transaction, as waitForKafkaReady checks).
 */
export async function startProxiedBroker(): Promise<ProxiedBroker> {
  const [proxyPort, port, controllerPort] = [await freePort(), await freePort(), await freePort()];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-proxied-broker-'));
  const [java, kafka] = await Promise.all([requireJava(17, 'Kafka'), ensureKafka(defaultCacheDir())]);
  const broker = await startBroker({ java, kafkaDir: kafka.dir, dir, port, controllerPort, advertisedPort: proxyPort, heap: '256m' });
  const proxy = await FaultProxy.start(proxyPort, () => port);
  const stop = async () => {
    await proxy.stop();
    try {
      process.kill(-broker.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    await broker.exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const brokers = [`127.0.0.1:${proxyPort}`];
    const logger = createLogger({ service: 'test', level: 'silent' });
    await waitForKafkaReady(createKafkaClient({ brokers, clientId: 'proxied-broker-ready', logger }), { timeoutMs: 90_000 });
    return { brokers, proxy, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
