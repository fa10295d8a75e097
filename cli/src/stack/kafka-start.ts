import path from 'node:path';
import type { JavaRuntime } from './java';
import { startBroker } from './kafka-broker';
import { clusterBrokers, startClusterNodes, waitForCluster, type NodePorts } from './kafka-cluster';
import type { StartedProcess } from './processes';
import { waitForBroker } from './readiness';
import type { KafkaNodeInfo } from './run-info';

export interface KafkaLaunch {
  java: JavaRuntime;
  /** Folder holding Kafka's lib/ of jars. */
  kafkaDir: string;
  stateDir: string;
  /** Every node's ports, node 1 first: one entry for a single broker. */
  nodes: NodePorts[];
  signal: AbortSignal;
}

/** The Kafka of a stack: one broker, or the nodes of a cluster. */
export interface StartedKafka {
  /** KAFKA_BROKERS: every node. */
  brokers: string;
  /** Node 1, the only one of a single broker: run.json's `processes.kafka` and `logs.kafka`. */
  first: StartedProcess & { logFile: string };
  /** A cluster's nodes as run.json records them; undefined for a single broker. */
  cluster?: KafkaNodeInfo[];
  /** Waits until Kafka really serves; rejects at once when one of its JVMs exits. */
  waitUntilReady: (deadline: number, signal: AbortSignal) => Promise<void>;
  /** Resolves with a description when any of its JVMs exits. */
  exited: Promise<string>;
}

/**
 * Starts the broker of a single-node stack (in `<stateDir>/kafka`, as always), or every node of a
 * cluster; `onStarted` hears of each JVM with its name (`kafka`, or `kafka-<id>`) as soon as it
 * runs, so a failure later still stops it.
 */
export async function startKafka(
  l: KafkaLaunch,
  onStarted: (name: 'kafka' | `kafka-${number}`, process: StartedProcess) => void,
): Promise<StartedKafka> {
  const brokers = clusterBrokers(l.nodes);
  const exitOf = (name: string, node: StartedProcess & { logFile: string }) =>
    node.exited.then(({ code, signal }) => `${name} exited (${signal ?? code}); see ${node.logFile}`);
  if (l.nodes.length > 1) {
    const nodes = await startClusterNodes({ ...l }, (node) => onStarted(`kafka-${node.nodeId}`, node));
    return {
      brokers,
      first: nodes[0]!,
      cluster: nodes.map(({ nodeId, pid, port, controllerPort, log }) => ({ nodeId, pid, port, controllerPort, log })),
      waitUntilReady: (deadline, signal) => waitForCluster(nodes, deadline, signal),
      exited: Promise.race(nodes.map((node) => exitOf(`Kafka node ${node.nodeId}`, node))),
    };
  }
  const node = l.nodes[0]!;
  const dir = path.join(l.stateDir, 'kafka');
  const broker = await startBroker({
    java: l.java,
    kafkaDir: l.kafkaDir,
    dir,
    port: node.port,
    controllerPort: node.controllerPort,
    signal: l.signal,
  });
  onStarted('kafka', broker);
  return {
    brokers,
    first: broker,
    waitUntilReady: (deadline, signal) =>
      waitForBroker(brokers, path.join(dir, 'data'), { process: broker, port: node.port, logFile: broker.logFile, deadline, signal }),
    exited: exitOf('the Kafka broker', broker),
  };
}
