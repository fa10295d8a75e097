/**
 * Child process (forked by CommitTracer in arrival-log.ts) with the brokers and the real
 * callback-requests topic as its arguments: a read_committed consumer noting when each record
 * (its key is the policy number) became readable, i.e. when the policy-status-consumer's
 * transaction holding it committed, give or take a fetch. It splits the end-to-end latency into
 * the part before the callback-sender and the sender's own.
 */
import { randomUUID } from 'node:crypto';
import { createKafkaClient, createLogger } from '@hookstream/shared';
import { serveReceipts, type ArrivalReport, type Receipt, type TracerJoined } from './arrival-protocol';
import { epochMs } from './event-stream';

async function traceCommits(brokers: string, topic: string): Promise<void> {
  const kafka = createKafkaClient({
    brokers: brokers.split(','),
    clientId: 'bench-tracer',
    logger: createLogger({ service: 'bench-tracer', level: 'error' }),
  });
  const consumer = kafka.consumer({ groupId: `bench-tracer-${randomUUID()}`, readUncommitted: false, maxWaitTimeInMs: 100 });
  let receipts: Receipt[] = [];
  consumer.on(consumer.events.GROUP_JOIN, () => process.send?.({ joined: true } satisfies TracerJoined));
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    partitionsConsumedConcurrently: 6,
    eachBatch: async ({ batch }) => {
      const at = epochMs();
      for (const message of batch.messages) receipts.push([message.key?.toString('utf8') ?? '', at]);
      return Promise.resolve();
    },
  });
  serveReceipts(() => {
    const report: ArrivalReport = { type: 'receipts', receipts, blackHoled: 0 };
    receipts = [];
    return report;
  });
}

traceCommits(process.argv[2] ?? '', process.argv[3] ?? '').catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
