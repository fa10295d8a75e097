import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isStackProcess } from './processes';
import type { STACK_VERSIONS } from './versions';

/** The settings services need to reach the stack. */
export interface StackSettings {
  KAFKA_BROKERS: string;
  SCHEMA_REGISTRY_URL: string;
  /** The state database (`hookstream`) on the stack's PostgreSQL. Absent only for settings taken from an environment that has none. */
  DATABASE_URL?: string;
}

/** What a running stack records in `<stateDir>/run.json`, read by `stack status` and `stack down`. */
export interface StackRunInfo {
  stateDir: string;
  startedAt: string;
  versions: typeof STACK_VERSIONS;
  settings: StackSettings;
  processes: { kafka: number; registry: number; postgres: number };
  ports: { kafka: number; kafkaController: number; registry: number; registryManagement: number; postgres: number };
  logs: { kafka: string; registry: string; postgres: string };
  java: string;
  /**
   * Every Kafka node of a cluster (`stack up --brokers 3`), node 1 first; `processes.kafka`,
   * `ports.kafka`, `ports.kafkaController` and `logs.kafka` then describe node 1. Absent for a
   * single broker.
   */
  cluster?: KafkaNodeInfo[];
  /** Set by `stack down` before it stops anything: a part that dies now was stopped, and is not started again. */
  stopping?: boolean;
}

/** One Kafka node of a cluster, as run.json records it. */
export interface KafkaNodeInfo {
  nodeId: number;
  pid: number;
  port: number;
  controllerPort: number;
  log: string;
}

export const RUN_FILE = 'run.json';

export function readRunInfo(stateDir: string): StackRunInfo | undefined {
  const file = path.join(stateDir, RUN_FILE);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as StackRunInfo;
  } catch {
    return undefined;
  }
}

/** Written as soon as the processes are spawned, so `stack down` can stop a start that hangs or was interrupted. */
export function writeRunInfo(info: StackRunInfo): void {
  writeFileSync(path.join(info.stateDir, RUN_FILE), `${JSON.stringify(info, null, 2)}\n`);
}

export function removeRunInfo(stateDir: string): void {
  rmSync(path.join(stateDir, RUN_FILE), { force: true });
}

/** A process recorded in run.json, and whether it still runs as a process of its state dir. */
export interface RecordedProcess {
  pid: number;
  alive: boolean;
}

/** The recorded processes; a pid now used by another process counts as dead. */
export function recordedProcesses(
  info: StackRunInfo,
  stateDir: string,
): { kafka: RecordedProcess; registry: RecordedProcess; postgres: RecordedProcess } {
  const recorded = (pid: number | undefined) => ({ pid: pid ?? -1, alive: pid !== undefined && isStackProcess(pid, stateDir) });
  // A run.json of an older stack records no PostgreSQL: it counts as dead.
  return {
    kafka: recorded(info.processes.kafka),
    registry: recorded(info.processes.registry),
    postgres: recorded(info.processes.postgres),
  };
}

/** Running processes of a recorded stack (an empty list when none is alive). */
export function livePids(info: StackRunInfo | undefined, stateDir: string): number[] {
  if (!info) return [];
  // A cluster's other nodes too: node 1 is `processes.kafka`.
  const otherNodes = (info.cluster ?? []).filter((node) => node.pid !== info.processes.kafka);
  return [
    ...Object.values(recordedProcesses(info, stateDir)),
    ...otherNodes.map((node) => ({ pid: node.pid, alive: isStackProcess(node.pid, stateDir) })),
  ]
    .filter((p) => p.alive)
    .map((p) => p.pid);
}
