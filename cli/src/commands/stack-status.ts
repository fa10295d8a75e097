/** `hookstream stack status`: every part of the local stack, its endpoint and health, and what is down. */
import { ExitCodes } from '../exit-codes';
import { formatTable, printJson, printLine } from '../output';
import { checkClusterNodes, clusterNodeRows, clusterProcess } from '../stack/cluster-health';
import { checkJaeger, checkKafka, checkPostgres, checkRegistry, type EndpointHealth } from '../stack/health';
import { readRunInfo, recordedProcesses, type RecordedProcess, type StackRunInfo } from '../stack/run-info';
import { describeDown, partsFoundDown } from './stack-heal';

/** Health of a recorded component: DOWN, without asking, when its process is dead. */
async function componentHealth(process: RecordedProcess, check: () => Promise<EndpointHealth>): Promise<EndpointHealth> {
  return process.alive ? check() : { ok: false, detail: `process ${process.pid} is dead` };
}

const aliveOf = (p: ReturnType<typeof recordedProcesses>) => ({
  kafka: p.kafka.alive,
  registry: p.registry.alive,
  postgres: p.postgres.alive,
  ...(p.jaeger && { jaeger: p.jaeger.alive }),
});
const pidCell = (p: RecordedProcess) => `pid ${p.pid}${p.alive ? '' : ' (dead)'}`;

/** Jaeger's row: its UI with its health, or why the stack runs without a trace store. */
function tracesRow(info: StackRunInfo, jaeger: EndpointHealth | undefined, process: RecordedProcess | undefined): string[] {
  if (!info.traces) return ['jaeger (traces)', '-', '-', 'not recorded: this stack was started by an older hookstream'];
  if ('none' in info.traces) return ['jaeger (traces)', 'none', '-', info.traces.none];
  const detail = `OTLP ${info.traces.otlpUrl}; ${jaeger?.detail ?? ''}${process ? `; ${pidCell(process)}` : ''}`;
  return ['jaeger (traces)', jaeger?.ok ? 'up' : 'DOWN', info.traces.uiUrl, detail];
}

export async function stackStatus(opts: { json?: boolean; stateDir: string }): Promise<void> {
  const info = readRunInfo(opts.stateDir);
  const processes = info && recordedProcesses(info, opts.stateDir);
  // A cluster runs while any of its nodes does.
  if (info?.cluster && processes) processes.kafka = clusterProcess(info.cluster, opts.stateDir);
  if (!info || !processes || (!processes.kafka.alive && !processes.registry.alive && !processes.postgres.alive)) {
    if (opts.json)
      printJson({ running: false, stateDir: opts.stateDir, ...(info ? { processes: info.processes, alive: aliveOf(processes!) } : {}) });
    else {
      const { kafka, registry, postgres } = processes ?? {};
      const dead = processes
        ? `; recorded kafka pid ${kafka?.pid}, registry pid ${registry?.pid} and postgres pid ${postgres?.pid} are dead`
        : '';
      printLine(`not running (state in ${opts.stateDir}${dead})`);
    }
    process.exitCode = ExitCodes.STACK_NOT_RUNNING;
    return;
  }
  const databaseUrl = info.settings.DATABASE_URL ?? '';
  const traces = info.traces && 'uiUrl' in info.traces ? info.traces : undefined;
  const [kafka, registry, postgres, kafkaNodes, jaeger] = await Promise.all([
    componentHealth(processes.kafka, () => checkKafka(info.settings.KAFKA_BROKERS)),
    componentHealth(processes.registry, () => checkRegistry(info.settings.SCHEMA_REGISTRY_URL)),
    componentHealth(processes.postgres, () => checkPostgres(databaseUrl)),
    info.cluster ? checkClusterNodes(info.cluster, opts.stateDir) : undefined,
    traces && processes.jaeger ? componentHealth(processes.jaeger, () => checkJaeger(traces.uiUrl)) : undefined,
  ]);
  // A Jaeger the stack runs counts as any part: `stack up` starts it again when it is down.
  const healthy = kafka.ok && registry.ok && postgres.ok && (kafkaNodes ?? []).every((node) => node.ok) && (jaeger?.ok ?? true);
  const down = partsFoundDown({ kafka, registry, postgres, kafkaNodes, jaeger });
  if (opts.json) {
    printJson({
      running: true,
      healthy,
      down: down.map((d) => d.part),
      ...info,
      alive: aliveOf(processes),
      health: { kafka, registry, postgres, ...(kafkaNodes && { kafkaNodes }), ...(jaeger && { jaeger }) },
    });
  } else {
    printLine(
      formatTable([
        ['component', 'health', 'endpoint', 'detail'],
        ['kafka', kafka.ok ? 'up' : 'DOWN', `PLAINTEXT://${info.settings.KAFKA_BROKERS}`, kafka.detail],
        ...(kafkaNodes
          ? clusterNodeRows(kafkaNodes)
          : [['kafka controller', '-', `CONTROLLER://127.0.0.1:${info.ports.kafkaController}`, pidCell(processes.kafka)]]),
        ['registry', registry.ok ? 'up' : 'DOWN', info.settings.SCHEMA_REGISTRY_URL, registry.detail],
        ['registry management', '-', `http://127.0.0.1:${info.ports.registryManagement}`, pidCell(processes.registry)],
        ['postgres', postgres.ok ? 'up' : 'DOWN', `127.0.0.1:${info.ports.postgres}`, `${postgres.detail}; ${pidCell(processes.postgres)}`],
        tracesRow(info, jaeger, processes.jaeger),
      ]),
    );
    printLine();
    printLine(`KAFKA_BROKERS=${info.settings.KAFKA_BROKERS}`);
    printLine(`SCHEMA_REGISTRY_URL=${info.settings.SCHEMA_REGISTRY_URL}`);
    printLine(`DATABASE_URL=${databaseUrl}`);
    if (traces) printLine(`OTEL_EXPORTER_OTLP_ENDPOINT=${traces.otlpUrl}`);
    printLine(`state: ${info.stateDir}; started ${info.startedAt}; Kafka ${info.versions.kafka}, Apicurio ${info.versions.apicurio}`);
    for (const line of describeDown(down)) printLine(line);
  }
  if (!healthy) process.exitCode = ExitCodes.STACK_UNHEALTHY;
}
