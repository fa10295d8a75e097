import { checkKafka, type EndpointHealth } from './health';
import { isStackProcess } from './processes';
import type { KafkaNodeInfo, RecordedProcess } from './run-info';

/** The health of one node of a cluster (`stack status`). */
export interface KafkaNodeHealth extends EndpointHealth {
  nodeId: number;
  pid: number;
  alive: boolean;
  /** PLAINTEXT://127.0.0.1:<port> */
  endpoint: string;
  /** CONTROLLER://127.0.0.1:<port> */
  controller: string;
}

/**
 * Every node of a cluster: DOWN, without asking, when its process is dead; else asked on its own
 * port, and up only when it answers and the cluster's metadata lists it as a live broker (a node
 * that answers while fenced serves no partition).
 */
export async function checkClusterNodes(cluster: KafkaNodeInfo[], stateDir: string): Promise<KafkaNodeHealth[]> {
  return Promise.all(
    cluster.map(async (node) => {
      const alive = isStackProcess(node.pid, stateDir);
      const described = {
        nodeId: node.nodeId,
        pid: node.pid,
        alive,
        endpoint: `PLAINTEXT://127.0.0.1:${node.port}`,
        controller: `CONTROLLER://127.0.0.1:${node.controllerPort}`,
      };
      if (!alive) return { ...described, ok: false, detail: `process ${node.pid} is dead` };
      const health = await checkKafka(`127.0.0.1:${node.port}`, node.nodeId);
      return { ...described, ...health };
    }),
  );
}

/** The cluster as one component: alive while any node runs (the cluster may serve without node 1). */
export function clusterProcess(cluster: KafkaNodeInfo[], stateDir: string): RecordedProcess {
  const alive = cluster.find((node) => isStackProcess(node.pid, stateDir));
  return { pid: (alive ?? cluster[0]!).pid, alive: alive !== undefined };
}

/** `stack status` rows: one per node, in place of the single broker's controller row. */
export function clusterNodeRows(nodes: KafkaNodeHealth[]): string[][] {
  return nodes.map((node) => [
    `kafka node ${node.nodeId}`,
    node.ok ? 'up' : 'DOWN',
    node.endpoint,
    `pid ${node.pid}${node.alive ? '' : ' (dead)'}; ${node.controller}; ${node.detail}`,
  ]);
}
