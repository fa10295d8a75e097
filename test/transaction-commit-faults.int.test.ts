import { createKafkaClient, GroupMember, type Kafka } from '@hookstream/kafka';
import { createLogger, sleep } from '@hookstream/runtime';
import { createTopics, readTopicToEnd, uniqueName, waitFor } from './helpers/infrastructure';
import { startProxiedBroker, type ProxiedBroker } from './helpers/proxied-broker';

/**
 * A consume-transform-produce member (GroupMember, transactional mode) whose transaction commit
 * ends in doubt: the EndTxn request reaches the coordinator, which commits, but its answer comes
 * later than the commit call waits (a slow broker), made by the TCP proxy in between. librdkafka
 * reports such a commit as retriable; the member must finish that commit, not write the batch again
 * in a new transaction, or its outputs are read twice (read_committed). When it gives up on the
 * commit, it must read on from what the group committed, not write again what it holds.
 */
const logger = createLogger({ service: 'test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
/** The member's transaction timeout, which bounds each commit call too. */
const TRANSACTION_TIMEOUT_MS = 3000;
let broker: ProxiedBroker;
let kafka: Kafka;

beforeAll(async () => {
  broker = await startProxiedBroker();
  kafka = createKafkaClient({ brokers: broker.brokers, clientId: uniqueName('txn-faults'), logger });
}, 120_000);

afterAll(async () => {
  await broker?.stop();
});

/** A member of `groupId` that writes one record to `output` per record of `input` (value `out:<input value>`). */
function copier(groupId: string, input: string, output: string): GroupMember {
  return new GroupMember({
    kafka,
    logger,
    groupId,
    session: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 30_000 },
    fetch: { maxWaitMs: 50 },
    topics: [input],
    mode: {
      kind: 'transactional',
      transactionTimeoutMs: TRANSACTION_TIMEOUT_MS,
      transform: async (batch) => batch.messages.map((m) => ({ topic: output, message: { value: `out:${m.value!.toString()}` } })),
    },
  });
}

async function produce(topic: string, values: string[]): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: values.map((value) => ({ value })) });
  await producer.disconnect();
}

const outputsOf = async (topic: string) => (await readTopicToEnd(topic, kafka)).map((m) => m.value!.toString());

/**
 * Runs a copier over 20 inputs while the answer to its first commit, and to any EndTxn within
 * `forMs` after it (librdkafka sends a timed-out one again on a new connection), is held back `delayMs`;
 * then, past that window, one input more. Resolves with every output read (read_committed) once
 * that last one is there (one partition, read in order: any second writing of an earlier batch is
 * read by then too).
 */
async function copyWithLateCommitAnswers(delayMs: number, forMs: number): Promise<{ values: string[]; outputs: string[] }> {
  const [input, output, groupId] = [uniqueName('endtxn-in'), uniqueName('endtxn-out'), uniqueName('endtxn-group')];
  await createTopics(kafka, [{ topic: input }, { topic: output }]);
  const values = Array.from({ length: 20 }, (_, i) => `v${i}`);
  await produce(input, values);
  const delayedBefore = broker.proxy.delayedEndTxnAnswers;
  broker.proxy.delayEndTxnAnswers(delayMs, forMs);
  const member = copier(groupId, input, output);
  try {
    await member.start();
    await waitFor(() => broker.proxy.delayedEndTxnAnswers > delayedBefore, 'the first commit to be slow', 30_000);
    await sleep(forMs);
    await produce(input, ['last']);
    await waitFor(async () => (await outputsOf(output)).includes('out:last'), 'the last input to be written', 90_000);
    return { values: [...values, 'last'], outputs: await outputsOf(output) };
  } finally {
    await member.stop();
  }
}

const once = (values: string[]) => values.map((v) => `out:${v}`).sort();

test('when the answer to a transaction commit comes after the commit call gave up, then the commit is finished and each input is written once', async () => {
  // Past one commit call's timeout; librdkafka's own retry of the EndTxn is answered at once.
  const { values, outputs } = await copyWithLateCommitAnswers(TRANSACTION_TIMEOUT_MS + 2000, 0);
  expect(outputs.sort()).toEqual(once(values));
}, 120_000);

test('when the answer to a transaction commit comes later than the member waits for it, then its partition is read again from what the group committed and each input is written once', async () => {
  // Every EndTxn answer late past the time the member calls the commit again (twice the transaction
  // timeout): it replaces its producer, whose successor finds the transaction committed.
  const { values, outputs } = await copyWithLateCommitAnswers(4 * TRANSACTION_TIMEOUT_MS, 4 * TRANSACTION_TIMEOUT_MS);
  expect(outputs.sort()).toEqual(once(values));
}, 150_000);
