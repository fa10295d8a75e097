import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError } from '@hookstream/errors';
import type { JavaRuntime } from '../../src/stack/java';
import { prepareBroker, type BrokerSettings } from '../../src/stack/kafka-broker';
import { clusterBrokers, clusterNodeDir, clusterNodeSettings, parseBrokerCount, pickOtherNodePorts } from '../../src/stack/kafka-cluster';

describe('a Kafka cluster of the local stack', () => {
  let stateDir: string;
  const java: JavaRuntime = { executable: '/nonexistent/java', major: 25, home: '/nonexistent' };
  const nodes = [
    { port: 19092, controllerPort: 19093 },
    { port: 19094, controllerPort: 19095 },
    { port: 19096, controllerPort: 19097 },
  ];

  beforeEach(() => (stateDir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-cluster-unit-'))));
  afterEach(() => rmSync(stateDir, { recursive: true, force: true }));

  /** server.properties as prepareBroker writes it; storage counts as formatted, so no JVM runs. */
  async function serverProperties(settings: BrokerSettings): Promise<Record<string, string | undefined>> {
    mkdirSync(path.join(settings.dir, 'data'), { recursive: true });
    writeFileSync(path.join(settings.dir, 'data', 'meta.properties'), 'cluster.id=abc\n');
    const { configFile } = await prepareBroker(settings);
    return parseEnv(readFileSync(configFile, 'utf8'));
  }

  test('when node 2 of 3 is configured, then it votes with all three and every topic gets 3 replicas and min ISR 2', async () => {
    const settings = clusterNodeSettings({ java, kafkaDir: '/k', stateDir, nodes, signal: new AbortController().signal }, 'abc', 2);
    expect(settings.dir).toBe(clusterNodeDir(stateDir, 2));
    const props = await serverProperties(settings);
    expect(props).toMatchObject({
      'node.id': '2',
      'controller.quorum.voters': '1@127.0.0.1:19093,2@127.0.0.1:19095,3@127.0.0.1:19097',
      listeners: 'PLAINTEXT://127.0.0.1:19094,CONTROLLER://127.0.0.1:19095',
      'default.replication.factor': '3',
      'min.insync.replicas': '2',
      'offsets.topic.replication.factor': '3',
      'transaction.state.log.replication.factor': '3',
      'transaction.state.log.min.isr': '2',
      'broker.session.timeout.ms': '4000',
    });
  });

  test('when a single broker is configured, then it keeps its own quorum and one replica of the internal topics', async () => {
    const props = await serverProperties({ java, kafkaDir: '/k', dir: path.join(stateDir, 'kafka'), port: 19092, controllerPort: 19093 });
    expect(props).toMatchObject({
      'node.id': '1',
      'controller.quorum.voters': '1@127.0.0.1:19093',
      'offsets.topic.replication.factor': '1',
      'transaction.state.log.min.isr': '1',
    });
    expect(props['default.replication.factor']).toBeUndefined();
    expect(props['min.insync.replicas']).toBeUndefined();
  });

  test('when ports are picked for the other nodes, then none repeats a port already taken', async () => {
    const taken = new Set([40000, 40001]);
    const others = await pickOtherNodePorts(3, 'random', taken);
    const all = others.flatMap((n) => [n.port, n.controllerPort]);
    expect(others).toHaveLength(2);
    expect(new Set(all).size).toBe(4);
    expect(all.some((p) => p === 40000 || p === 40001)).toBe(false);
    expect(clusterBrokers(nodes)).toBe('127.0.0.1:19092,127.0.0.1:19094,127.0.0.1:19096');
  });

  test('when a broker count is given, then 1 and 3 are accepted and anything else is refused naming the setting', () => {
    expect(parseBrokerCount('3')).toBe(3);
    expect(parseBrokerCount(' 1 ')).toBe(1);
    for (const bad of ['2', '0', 'three', '']) expect(() => parseBrokerCount(bad, 'HOOKSTREAM_BROKERS')).toThrow(ConfigError);
    expect(() => parseBrokerCount('2', 'HOOKSTREAM_BROKERS')).toThrow(/HOOKSTREAM_BROKERS: must be 1 or 3, not "2"/);
  });
});
