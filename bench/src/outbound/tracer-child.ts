/**
 * Child process (forked by CommitTracer in arrival-log.ts) with the brokers and the real
 * callback-requests topic as its arguments: a read_committed consumer noting when each record
 * (its key is the policy number) became readable, i.e. when the policy-status-consumer's
 * transaction holding it committed, give or take a fetch. It splits the end-to-end latency into
 * the part before the callback-sender and the sender's own.
 */
import { randomUUID } from 'node:crypto';
import { createKafkaClient } from '@hookstream/kafka';
import { createLogger } from '@hookstream/runtime';
import { serveReceipts, type ArrivalReport, type Receipt, type TracerJoined } from './arrival-protocol';
import { epochMs } from './event-stream';

async function traceCommits(brokers: string, topic: string): Promise<void> {
  const kafka = createKafkaClient({
    brokers: brokers.split(','),
    clientId: 'bench-tracer',
    logger: createLogger({ service: 'bench-tracer', level: 'error' }),
  });
  const consumer = kafka.consumer({
    groupId: `bench-tracer-${randomUUID()}`,
    fromBeginning: true,
    maxWaitMs: 100,
    onRebalance: (event) => {
      if (event === 'assigned') process.send?.({ joined: true } satisfies TracerJoined);
    },
  });
  let receipts: Receipt[] = [];
  await consumer.connect();
  await consumer.subscribe({ topics: [topic] });
  await consumer.run({
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
