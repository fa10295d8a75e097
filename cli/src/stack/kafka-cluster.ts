import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { ConfigError, StackError } from '@hookstream/errors';
import { sleepUnlessAborted } from '@hookstream/runtime';
import { stackProbeClient } from './probe-client';
import { allOrFirstFailure } from './interruption';
import type { JavaRuntime } from './java';
import { prepareBroker, startBroker, type BrokerSettings } from './kafka-broker';
import { pickPort, type PortPreference } from './ports';
import { brokerStartSignal, proveKafkaServes, waitForOwnBroker } from './readiness';
import type { KafkaNodeInfo } from './run-info';

/**
 * `stack up --brokers 3`: a KRaft cluster on loopback whose nodes are each broker and controller
 * (three voters: the quorum and every partition survive the loss of any one node). Two cores run
 * three combined JVMs more cheaply than three brokers plus three controllers. A single broker keeps
 * its storage in `<stateDir>/kafka` as before; a cluster's nodes keep theirs in
 * `<stateDir>/kafka-cluster/node-<id>`, so one state dir can hold both without mixing them.
 */

/** Broker counts `stack up` accepts: a 2-node quorum survives no loss, and more than 3 JVMs do not fit 2 cores. */
export const BROKER_COUNTS = [1, 3] as const;

/** HOOKSTREAM_BROKERS, and --brokers: how many Kafka nodes a started stack runs. */
export function parseBrokerCount(value: string, variable = '--brokers'): number {
  const count = Number(value.trim());
  if (!(BROKER_COUNTS as readonly number[]).includes(count)) {
    throw new ConfigError([{ variable, message: `must be ${BROKER_COUNTS.join(' or ')}, not "${value}"` }]);
  }
  return count;
}

export const CLUSTER_DIR = 'kafka-cluster';

export function clusterNodeDir(stateDir: string, nodeId: number): string {
  return path.join(stateDir, CLUSTER_DIR, `node-${nodeId}`);
}

/** Heap of each node: three of them share the machine with the registry and the services. */
const NODE_HEAP = '384m';

/**
 * The settings that make every topic of the cluster survive a node: three replicas, and a write
 * acknowledged only once two hold it (internal topics included, so group offsets and
 * transactions survive too).
 */
function clusterProperties(count: number): string[] {
  const replicas = Math.min(3, count);
  const minIsr = replicas >= 3 ? 2 : 1;
  return [
    `default.replication.factor=${replicas}`,
    `min.insync.replicas=${minIsr}`,
    `offsets.topic.replication.factor=${replicas}`,
    `transaction.state.log.replication.factor=${replicas}`,
    `transaction.state.log.min.isr=${minIsr}`,
    `share.coordinator.state.topic.replication.factor=${replicas}`,
    `share.coordinator.state.topic.min.isr=${minIsr}`,
    // A dead node's partitions get new leaders only once the controller fences it: when its
    // heartbeats have been missing for the session timeout (default 9 s, heartbeats every 2 s).
    // 4 s with 1 s heartbeats bounds a failover at ~4 s (plus ~2-3 s when the dead node was the
    // active controller and the quorum must elect another). Shorter risks fencing a live node
    // that a loaded 2-core machine kept from heartbeating; that costs a leader move, not data.
    'broker.heartbeat.interval.ms=1000',
    'broker.session.timeout.ms=4000',
  ];
}

/** The ports of one node. */
export interface NodePorts {
  port: number;
  controllerPort: number;
}

/**
 * Ports for nodes 2..count (node 1 takes the stack's usual Kafka ports). With 'defaults', node n
 * tries 9092 + 2(n-1) and the next port for its controller.
 */
export async function pickOtherNodePorts(count: number, preference: PortPreference, taken: Set<number>): Promise<NodePorts[]> {
  const nodes: NodePorts[] = [];
  for (let id = 2; id <= count; id++) {
    const preferred = (port: number) => (preference === 'defaults' ? port : undefined);
    nodes.push({
      port: await pickPort(preferred(9092 + 2 * (id - 1)), taken),
      controllerPort: await pickPort(preferred(9093 + 2 * (id - 1)), taken),
    });
  }
  return nodes;
}

/**
 * The id every node is formatted with: that of a node formatted before (a start interrupted half
 * way formats the rest with it), else a new one. Kafka's ids are 16 random bytes in URL-safe
 * base64, never starting with '-' (it would read as an option): made here, it costs no JVM start.
 */
function clusterIdOf(stateDir: string, count: number): string {
  for (let id = 1; id <= count; id++) {
    try {
      const found = parseEnv(readFileSync(path.join(clusterNodeDir(stateDir, id), 'data', 'meta.properties'), 'utf8'))['cluster.id'];
      if (found) return found;
    } catch {
      // not formatted yet
    }
  }
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

export interface ClusterLaunch {
  java: JavaRuntime;
  kafkaDir: string;
  stateDir: string;
  /** Every node's ports, node 1 first. */
  nodes: NodePorts[];
  signal: AbortSignal;
}

/** One node's start settings; the same on every start (ports come from the caller). */
export function clusterNodeSettings(c: ClusterLaunch, clusterId: string, nodeId: number): BrokerSettings {
  const node = c.nodes[nodeId - 1]!;
  return {
    java: c.java,
    kafkaDir: c.kafkaDir,
    dir: clusterNodeDir(c.stateDir, nodeId),
    port: node.port,
    controllerPort: node.controllerPort,
    heap: NODE_HEAP,
    signal: c.signal,
    cluster: {
      nodeId,
      voters: c.nodes.map((n, i) => `${i + 1}@127.0.0.1:${n.controllerPort}`).join(','),
      clusterId,
      properties: clusterProperties(c.nodes.length),
    },
  };
}

/** A started node of the cluster. */
export type StartedKafkaNode = Awaited<ReturnType<typeof startBroker>> & KafkaNodeInfo & { dataDir: string };

/**
 * Formats every node's storage (side by side, once) and starts each node's JVM; `onStarted`
 * hears of each at once, so a failure later still stops those already running. Readiness is
 * {@link waitForCluster}'s.
 */
export async function startClusterNodes(c: ClusterLaunch, onStarted: (node: StartedKafkaNode) => void): Promise<StartedKafkaNode[]> {
  const clusterId = clusterIdOf(c.stateDir, c.nodes.length);
  const settings = c.nodes.map((_, i) => clusterNodeSettings(c, clusterId, i + 1));
  await Promise.all(settings.map((s) => prepareBroker(s)));
  const started: StartedKafkaNode[] = [];
  for (const s of settings) {
    const broker = await startBroker(s);
    const node = {
      ...broker,
      nodeId: s.cluster!.nodeId,
      port: s.port,
      controllerPort: s.controllerPort,
      log: broker.logFile,
      dataDir: path.join(s.dir, 'data'),
    };
    onStarted(node);
    started.push(node);
  }
  return started;
}

/** The bootstrap list of a cluster: every node. */
export function clusterBrokers(nodes: NodePorts[]): string {
  return nodes.map((n) => `127.0.0.1:${n.port}`).join(',');
}

/**
 * Waits until every node answers as a node of this cluster, all of them are registered brokers
 * (a topic with three replicas can be created), and the cluster serves a group join and a
 * transaction. Any node's JVM exiting ends the wait at once with its log's last lines.
 */
export async function waitForCluster(nodes: StartedKafkaNode[], deadline: number, signal: AbortSignal): Promise<void> {
  const starting = (node: StartedKafkaNode, s: AbortSignal) => ({ process: node, port: node.port, logFile: node.log, deadline, signal: s });
  await allOrFirstFailure(
    nodes.map((node) => (s: AbortSignal) => waitForOwnBroker(`127.0.0.1:${node.port}`, node.dataDir, starting(node, s))),
    signal,
  );
  const anyExit = AbortSignal.any(nodes.map((node) => brokerStartSignal(starting(node, signal))));
  const brokers = clusterBrokers(nodes);
  await waitForRegisteredBrokers(nodes, deadline, anyExit);
  await proveKafkaServes(brokers, Math.max(5000, deadline - Date.now()), anyExit);
}

/** Waits until the cluster's metadata lists every node as a live broker. */
async function waitForRegisteredBrokers(nodes: StartedKafkaNode[], deadline: number, signal: AbortSignal): Promise<void> {
  const kafka = stackProbeClient(clusterBrokers(nodes).split(','), 'hookstream-stack');
  const admin = kafka.admin({ retries: 0 });
  let missing = nodes;
  try {
    while (Date.now() < deadline) {
      signal.throwIfAborted();
      try {
        await admin.connect();
        const registered = new Set((await admin.describeCluster()).brokers.map((b) => b.nodeId));
        missing = nodes.filter((node) => !registered.has(node.nodeId));
        if (missing.length === 0) return;
      } catch {
        await admin.disconnect().catch(() => undefined); // not answering yet: connect afresh
      }
      await sleepUnlessAborted(250, signal);
    }
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
  const which = missing.map((node) => `node ${node.nodeId} (log ${node.log})`).join(', ');
  throw new StackError(`Kafka nodes did not join the cluster in time: ${which}`);
}
