import { printLine } from '../output';
import { STACK_ENV_FILE } from '../paths';
import type { EndpointHealth } from '../stack/health';
import { partEndpoint, partsDown, restartStackPart } from '../stack/heal';
import { watchInterrupts } from '../stack/interruption';
import { readRunInfo, traceSettings, type StackRunInfo } from '../stack/run-info';
import { writeStackEnv } from '../stack/stack-env';

/** One part `stack status` found down, and why. */
export interface PartDown {
  /** "kafka", "registry", "postgres", "kafka node 2". */
  part: string;
  detail: string;
}

/** The parts whose health check failed, named as `stack status` shows them. */
export function partsFoundDown(health: {
  kafka: EndpointHealth;
  registry: EndpointHealth;
  postgres?: EndpointHealth;
  kafkaNodes?: Array<EndpointHealth & { nodeId: number }> | undefined;
  /** Absent when the stack runs no Jaeger. */
  jaeger?: EndpointHealth | undefined;
}): PartDown[] {
  const nodes = (health.kafkaNodes ?? [])
    .filter((node) => !node.ok)
    .map((node) => ({ part: `kafka node ${node.nodeId}`, detail: node.detail }));
  return [
    ...(health.kafka.ok ? [] : [{ part: 'kafka', detail: health.kafka.detail }]),
    ...nodes,
    ...(health.registry.ok ? [] : [{ part: 'registry', detail: health.registry.detail }]),
    ...(!health.postgres || health.postgres.ok ? [] : [{ part: 'postgres', detail: health.postgres.detail }]),
    ...(!health.jaeger || health.jaeger.ok ? [] : [{ part: 'jaeger', detail: health.jaeger.detail }]),
  ];
}

/** "DOWN: kafka (process 123 is dead)" for each, then what brings them back. */
export function describeDown(down: PartDown[]): string[] {
  if (down.length === 0) return [];
  const lines = down.map(({ part, detail }) => `DOWN: ${part} (${detail})`);
  if (down.some(({ part }) => part.startsWith('kafka node'))) {
    lines.push('a node of a cluster is not started again on its own: `hookstream stack down`, then `hookstream stack up --brokers 3`');
  } else {
    lines.push('`hookstream stack up` starts what is down again, on the same ports with the same state');
  }
  return lines;
}

/**
 * `stack up` when part of the stack runs: starts each part that is down again on the ports
 * run.json records, with the same state, so whatever used the stack (services, `.hookstream/
 * stack.env`) goes on with the same addresses. Returns false when nothing is down. What it
 * starts runs in the background, like the rest of the stack it joins.
 */
export async function healStack(info: StackRunInfo, options: { stateDir: string; cacheDir: string }): Promise<boolean> {
  const { stateDir } = options;
  const down = partsDown(info, stateDir);
  if (down.length === 0) return false;
  for (const part of down) printLine(`${part} of the stack in ${stateDir} is down; starting it again at ${partEndpoint(info, part)}`);
  const interrupts = watchInterrupts();
  const began = Date.now();
  try {
    for (const part of down) {
      const started = await restartStackPart(part, { ...options, log: (l) => printLine(`  ${l}`), signal: interrupts.signal });
      if (!started) printLine(`  ${part}: another hookstream started it meanwhile`);
      started?.detach();
    }
  } finally {
    interrupts.dispose();
  }
  const healed = readRunInfo(stateDir) ?? info;
  writeStackEnv(STACK_ENV_FILE, healed);
  printLine(`KAFKA_BROKERS=${healed.settings.KAFKA_BROKERS}`);
  printLine(`SCHEMA_REGISTRY_URL=${healed.settings.SCHEMA_REGISTRY_URL}`);
  if (healed.settings.DATABASE_URL) printLine(`DATABASE_URL=${healed.settings.DATABASE_URL}`);
  const traces = traceSettings(healed);
  if (traces.OTEL_EXPORTER_OTLP_ENDPOINT) printLine(`OTEL_EXPORTER_OTLP_ENDPOINT=${traces.OTEL_EXPORTER_OTLP_ENDPOINT}`);
  printLine(`healed in ${((Date.now() - began) / 1000).toFixed(1)} s; running in the background; stop with \`hookstream stack down\``);
  return true;
}
