import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { StackError, describeError } from '@hookstream/errors';
import { createKafkaClient, waitForKafkaReady, type Kafka } from '@hookstream/kafka';
import { createLogger } from '@hookstream/runtime';
import { sleepUnlessAborted, untilAborted } from './interruption';
import { logSince, tail } from './logs';
import { stackProbeClient } from './probe-client';
import { canConnect } from './ports';
import type { StartedProcess } from './processes';

/** One JVM being waited for. */
export interface StartingProcess {
  process: StartedProcess;
  port: number;
  logFile: string;
  /** Give up at this time (ms since the epoch). */
  deadline: number;
  /** Ends the wait at once: an interrupt, or the other JVM failing. The wait rejects with its reason. */
  signal: AbortSignal;
}

/** `signal`, also aborted (with the error `describe` makes) when the process ends: every wait below stops at once then. */
function abortedOnExit(starting: StartingProcess, describe: (how: string) => StackError): AbortSignal {
  const exited = new AbortController();
  void starting.process.exited.then(({ code, signal }) => exited.abort(describe(`exited with ${signal ?? code}`)));
  return AbortSignal.any([starting.signal, exited.signal]);
}

/** Waits until the registry lists subjects at `url`, answered by our JVM. */
export async function waitForRegistry(url: string, starting: StartingProcess & { logStart: number }): Promise<void> {
  const { port, logFile, deadline } = starting;
  const signal = abortedOnExit(
    starting,
    (how) => new StackError(`Apicurio Registry ${how} while starting. Last lines of ${logFile}:\n${tail(logFile)}`),
  );
  while (Date.now() < deadline) {
    signal.throwIfAborted();
    // Another process may have taken the port between our check and the JVM's bind (then ours
    // exits 1, a moment later): only our own log saying it listens there proves the answer is ours.
    if (logSince(logFile, starting.logStart).includes(`Listening on: http://127.0.0.1:${port}`)) {
      try {
        const response = await fetch(`${url}/subjects`, { signal: AbortSignal.any([signal, AbortSignal.timeout(2000)]) });
        if (response.ok && Array.isArray(await response.json())) return;
      } catch {
        // not answering yet (or aborted: checked above)
      }
    }
    await sleepUnlessAborted(250, signal);
  }
  throw new StackError(`Apicurio Registry did not answer at ${url} in time. Last lines of ${logFile}:\n${tail(logFile)}`);
}

/** The cluster id our broker's storage was formatted with. */
function ownClusterId(dataDir: string): string | undefined {
  try {
    return parseEnv(readFileSync(path.join(dataDir, 'meta.properties'), 'utf8'))['cluster.id'];
  } catch {
    return undefined;
  }
}

async function answersWithCluster(kafka: Kafka, clusterId: string | undefined): Promise<boolean> {
  const admin = kafka.admin({ retries: 0 });
  try {
    await admin.connect();
    return (await admin.describeCluster()).clusterId === clusterId;
  } catch {
    return false; // not answering metadata yet
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/**
 * Waits until the broker at `brokers` is ours (its storage's cluster id) and really serves: a
 * group join and a committed transaction.
 */
export async function waitForBroker(brokers: string, dataDir: string, starting: StartingProcess): Promise<void> {
  await waitForOwnBroker(brokers, dataDir, starting);
  await proveKafkaServes(brokers, Math.max(5000, starting.deadline - Date.now()), brokerStartSignal(starting));
}

/** The signal of a broker's start: also aborted, with the last lines of its log, when its JVM exits. */
export function brokerStartSignal(starting: StartingProcess): AbortSignal {
  const { logFile } = starting;
  return abortedOnExit(
    starting,
    (how) => new StackError(`the Kafka broker ${how} while starting. Last lines of ${logFile}:\n${tail(logFile)}`),
  );
}

/** Waits until the broker at `broker` answers metadata with the cluster id of the storage in `dataDir`. */
export async function waitForOwnBroker(broker: string, dataDir: string, starting: StartingProcess): Promise<void> {
  const { port, logFile, deadline } = starting;
  const signal = brokerStartSignal(starting);
  // No retries and short timeouts: each attempt ends quickly, so an abort is seen quickly.
  const kafka = stackProbeClient([broker], 'hookstream-stack');
  const expected = ownClusterId(dataDir);
  // Another process may have taken the port between our check and the JVM's bind: only a
  // broker with our storage's cluster id is ours. Checked before anything is written to it.
  for (;;) {
    signal.throwIfAborted();
    if (Date.now() > deadline)
      throw new StackError(`the Kafka broker did not start on ${port} in time. Last lines of ${logFile}:\n${tail(logFile)}`);
    if (
      await untilAborted(
        canConnect(port).then((open) => open && answersWithCluster(kafka, expected)),
        signal,
      )
    )
      return;
    await sleepUnlessAborted(250, signal);
  }
}

/** Shared's readiness probe (a group join and a committed transaction), ended at once by `signal`. */
export async function proveKafkaServes(brokers: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
  const kafka = createKafkaClient({
    brokers: brokers.split(','),
    clientId: 'hookstream-stack',
    logger: createLogger({ service: 'stack', level: 'silent' }),
    kafkaLogLevel: 'nothing',
  });
  try {
    await untilAborted(waitForKafkaReady(kafka, { timeoutMs, signal }), signal);
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw new StackError(`the Kafka broker did not become ready: ${describeError(error)}`, { cause: error });
  }
}
