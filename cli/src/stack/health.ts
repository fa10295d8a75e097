import { StackError, describeError } from '@hookstream/errors';
import { sleepUnlessAborted, withTimeout } from '@hookstream/runtime';
import { answers } from './postgres-server';
import { stackProbeClient } from './probe-client';
import type { StackSettings } from './run-info';

export interface EndpointHealth {
  ok: boolean;
  detail: string;
}

/** The innermost cause of a failure ("connect ECONNREFUSED 127.0.0.1:9092"), not the client's wrapper around it. */
function rootCause(error: unknown): string {
  let cause = error;
  while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
  return describeError(cause).replace(/^Connection error: /, '');
}

/**
 * Whether Kafka answers metadata at `brokers` (a quick check, not the full readiness probe),
 * and, given `nodeId`, whether that node is one of the live brokers it lists.
 * One attempt with short timeouts: a status check must answer at once, and must not leave a
 * client retrying in the background (kafkajs's kept the process alive for half a minute).
 */
export async function checkKafka(brokers: string, nodeId?: number): Promise<EndpointHealth> {
  const addresses = brokers.split(',');
  if (addresses.length > 1) {
    // One attempt asks one seed broker: a dead node of a cluster would hide the live ones.
    const each = await Promise.all(addresses.map((address) => checkKafka(address, nodeId)));
    return each.find((health) => health.ok) ?? each[0]!;
  }
  const kafka = stackProbeClient(addresses, 'hookstream-status', 1500);
  const admin = kafka.admin({ retries: 0 });
  try {
    const cluster = await withTimeout(
      (async () => {
        await admin.connect();
        return admin.describeCluster();
      })(),
      5000,
      `no answer from ${brokers} within 5 s`,
    );
    const detail = `cluster ${cluster.clusterId}, ${cluster.brokers.length} broker(s), controller ${cluster.controller}`;
    if (nodeId !== undefined && !cluster.brokers.some((b) => b.nodeId === nodeId)) {
      return { ok: false, detail: `answers, but is not a live broker of the cluster (fenced, or still starting): ${detail}` };
    }
    return { ok: true, detail };
  } catch (error) {
    return { ok: false, detail: rootCause(error) };
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** Whether the registry lists subjects at `url`. */
export async function checkRegistry(url: string): Promise<EndpointHealth> {
  try {
    const response = await fetch(`${url}/subjects`, { signal: AbortSignal.timeout(3000) });
    if (!response.ok) return { ok: false, detail: `HTTP ${response.status}` };
    const subjects = (await response.json()) as unknown[];
    return { ok: true, detail: `${subjects.length} subject(s)` };
  } catch (error) {
    return { ok: false, detail: rootCause(error) };
  }
}

/** Whether PostgreSQL answers `select 1` at `url`. */
export async function checkPostgres(url: string): Promise<EndpointHealth> {
  return (await answers(url, 3000)) ? { ok: true, detail: 'answers select 1' } : { ok: false, detail: `no answer at ${new URL(url).host}` };
}

/** Whether Jaeger's query API at `uiUrl` answers, and how many services have sent it spans. */
export async function checkJaeger(uiUrl: string): Promise<EndpointHealth> {
  try {
    const response = await fetch(`${uiUrl}/api/services`, { signal: AbortSignal.timeout(3000) });
    if (!response.ok) return { ok: false, detail: `HTTP ${response.status}` };
    const { data } = (await response.json()) as { data: string[] | null };
    return { ok: true, detail: `${data?.length ?? 0} service(s) traced` };
  } catch (error) {
    return { ok: false, detail: rootCause(error) };
  }
}

export async function checkStack(settings: StackSettings): Promise<{ kafka: EndpointHealth; registry: EndpointHealth }> {
  const [kafka, registry] = await Promise.all([checkKafka(settings.KAFKA_BROKERS), checkRegistry(settings.SCHEMA_REGISTRY_URL)]);
  return { kafka, registry };
}

/** How long a command waits for a stack that another command is still starting (its JVMs take 10–70 s). */
const STARTING_STACK_WAIT_MS = 180_000;

/**
 * Resolves once the stack running from `stateDir` serves (Kafka and the registry answer): a stack
 * found there may have been started a moment ago by another command and not answer yet. Rejects,
 * naming the folder, when it does not within STARTING_STACK_WAIT_MS.
 */
export async function untilStackServes(
  settings: StackSettings,
  stateDir: string,
  signal: AbortSignal,
  say: (line: string) => void,
): Promise<void> {
  const deadline = Date.now() + STARTING_STACK_WAIT_MS;
  let said = false;
  for (;;) {
    const { kafka, registry } = await checkStack(settings);
    if (kafka.ok && registry.ok) return;
    if (Date.now() > deadline) {
      const detail = !kafka.ok ? `Kafka: ${kafka.detail}` : `registry: ${registry.detail}`;
      throw new StackError(
        `the local stack running from ${stateDir} did not answer within ${STARTING_STACK_WAIT_MS / 1000} s (${detail}); see \`hookstream stack status\``,
      );
    }
    if (!said) say(`waiting for the local stack in ${stateDir}, still starting, to answer`);
    said = true;
    await sleepUnlessAborted(1000, signal);
  }
}
