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
  /** `jaeger` (and its ports and log) only when a trace store runs with the stack: see {@link StackRunInfo.traces}. */
  processes: { kafka: number; registry: number; postgres: number; jaeger?: number };
  ports: {
    kafka: number;
    kafkaController: number;
    registry: number;
    registryManagement: number;
    postgres: number;
    jaegerOtlp?: number;
    jaegerUi?: number;
    jaegerGrpc?: number;
  };
  logs: { kafka: string; registry: string; postgres: string; jaeger?: string };
  java: string;
  /**
   * Every Kafka node of a cluster (`stack up --brokers 3`), node 1 first; `processes.kafka`,
   * `ports.kafka`, `ports.kafkaController` and `logs.kafka` then describe node 1. Absent for a
   * single broker.
   */
  cluster?: KafkaNodeInfo[];
  /**
   * The stack's trace store: Jaeger's OTLP endpoint (the services' OTEL_EXPORTER_OTLP_ENDPOINT) and
   * UI, or why none runs (Go missing to build it, traces exported elsewhere, not asked for). Absent
   * in an older run.json.
   */
  traces?: { otlpUrl: string; uiUrl: string } | { none: string };
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

/** The recorded processes; a pid now used by another process counts as dead. Jaeger only when the stack runs one. */
export function recordedProcesses(
  info: StackRunInfo,
  stateDir: string,
): { kafka: RecordedProcess; registry: RecordedProcess; postgres: RecordedProcess; jaeger?: RecordedProcess } {
  const recorded = (pid: number | undefined) => ({ pid: pid ?? -1, alive: pid !== undefined && isStackProcess(pid, stateDir) });
  // A run.json of an older stack records no PostgreSQL: it counts as dead.
  return {
    kafka: recorded(info.processes.kafka),
    registry: recorded(info.processes.registry),
    postgres: recorded(info.processes.postgres),
    ...(info.processes.jaeger !== undefined && { jaeger: recorded(info.processes.jaeger) }),
  };
}

/** The trace store's URL of a delivery's, attempt's or webhook's trace (`{trace_id}` filled in), as the delivery log's console links it. */
export const jaegerTraceUrl = (uiUrl: string) => `${uiUrl}/trace/{trace_id}`;

/**
 * What a command or service run against the stack needs to trace into its Jaeger: none when it
 * runs without one. The environment's own (another collector) win: callers add these only where it sets none.
 */
export function traceSettings(info: Pick<StackRunInfo, 'traces'>): {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  DELIVERY_LOG_TRACE_URL?: string;
} {
  if (!info.traces || 'none' in info.traces) return {};
  return { OTEL_EXPORTER_OTLP_ENDPOINT: info.traces.otlpUrl, DELIVERY_LOG_TRACE_URL: jaegerTraceUrl(info.traces.uiUrl) };
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
