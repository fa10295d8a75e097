/** Stopping the local stack's processes: what `stack down`, a foreground `stack up` ending and a failed start share. */
import path from 'node:path';
import { STOP_JVM, STOP_POSTGRES, stopStackProcess, type StopOutcome } from './processes';
import { readRunInfo, removeRunInfo } from './run-info';

/** How stopping one process of the stack went. */
export interface StoppedProcess {
  /** `kafka-<id>` for a node of a cluster. */
  name: 'kafka' | 'registry' | 'postgres' | 'jaeger' | `kafka-${number}`;
  pid: number;
  outcome: StopOutcome;
}

/** Stops the processes in the order given, the nodes of a cluster together at the end (only those still ours: see stopStackProcess), and removes run.json. */
export async function stopProcesses(stateDir: string, processes: Array<Omit<StoppedProcess, 'outcome'>>): Promise<StoppedProcess[]> {
  const stopped: StoppedProcess[] = [];
  // A cluster's nodes stop together: one by one, the last would have lost its quorum and could
  // not finish its controlled shutdown (it was killed after the 20 s grace; together, ~6 s).
  const together = processes.filter((p) => p.name.startsWith('kafka-'));
  for (const { name, pid } of processes.filter((p) => !together.includes(p))) {
    stopped.push({ name, pid, outcome: await stopStackProcess(pid, stateDir, name === 'postgres' ? STOP_POSTGRES : STOP_JVM) });
  }
  const outcomes = await Promise.all(together.map(({ pid }) => stopStackProcess(pid, stateDir)));
  stopped.push(...together.map(({ name, pid }, i) => ({ name, pid, outcome: outcomes[i]! })));
  removeRunInfo(stateDir);
  return stopped;
}

/** Stops the stack recorded in `stateDir`, if any, registry first, PostgreSQL after it (as a running stack stops). */
export async function stopStack(stateDir: string): Promise<StoppedProcess[]> {
  const dir = path.resolve(stateDir);
  const info = readRunInfo(dir);
  if (!info) return [];
  const kafka = info.cluster?.map((node) => ({ name: `kafka-${node.nodeId}` as const, pid: node.pid })) ?? [
    { name: 'kafka' as const, pid: info.processes.kafka },
  ];
  // An older run.json records no PostgreSQL.
  const postgres = info.processes.postgres === undefined ? [] : [{ name: 'postgres' as const, pid: info.processes.postgres }];
  // Jaeger first: it was started last, and nothing of the stack depends on it.
  const jaeger = info.processes.jaeger === undefined ? [] : [{ name: 'jaeger' as const, pid: info.processes.jaeger }];
  return stopProcesses(dir, [...jaeger, { name: 'registry', pid: info.processes.registry }, ...postgres, ...kafka]);
}
