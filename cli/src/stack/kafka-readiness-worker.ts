/**
 * Worker thread running shared's `waitForKafkaReady` for a starting stack (see
 * `proveKafkaServes` in readiness.ts): terminating the worker is how a failed or interrupted
 * start cancels the probe.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createKafkaClient, createLogger, describeError, routeProcessWarnings, waitForKafkaReady } from '@hookstream/shared';

/** What the worker is given. */
export interface KafkaReadinessJob {
  brokers: string;
  timeoutMs: number;
}

/** The one message the worker posts back. */
export type KafkaReadinessResult = { ready: true } | { ready: false; error: string };

// As in the CLI's main thread: kafkajs's harmless TimeoutNegativeWarning is not shown.
routeProcessWarnings((warning) => process.stderr.write(`hookstream: warning: ${warning.message}\n`));

const job = workerData as KafkaReadinessJob;
const kafka = createKafkaClient({
  brokers: [job.brokers],
  clientId: 'hookstream-stack',
  logger: createLogger({ service: 'stack', level: 'silent' }),
  kafkaLogLevel: 'nothing',
});
const report = (result: KafkaReadinessResult) => parentPort?.postMessage(result);
waitForKafkaReady(kafka, { timeoutMs: job.timeoutMs }).then(
  () => report({ ready: true }),
  (error: unknown) => report({ ready: false, error: describeError(error) }),
);
