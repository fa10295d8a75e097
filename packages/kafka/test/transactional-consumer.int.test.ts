import { spawn } from 'node:child_process';
import path from 'node:path';
import pino from 'pino';
import { GroupMember } from '../src/group-member/group-member';
import { type Batch } from '../src/types';
import { type OutputRecord } from '../src/group-member/member-transactions';
import { sleep } from '@hookstream/runtime';
import { createTopics, readTopicToEnd, testKafka, uniqueName, waitFor } from '../../../test/helpers/infrastructure';

/**
 * The member transactions of a GroupMember in transactional mode against a real broker: what a zombie member
 * writes after its partitions moved on is refused by its generation (KIP-447), and a crashed
 * member's open transaction holds the group up no longer than its timeout.
 */
const kafka = testKafka();
const consumers: GroupMember[] = [];

afterEach(async () => {
  await Promise.all(consumers.splice(0).map((consumer) => consumer.stop().catch(() => undefined)));
});

/** A member of `groupId` that copies `input` to `output` (value `<member>:<input value>`), through `gate` when given. */
function copier(member: string, groupId: string, input: string, output: string, gate?: (batch: Batch) => Promise<void>) {
  const written: string[] = [];
  // What the member logs at warn and above: a refused transaction says so.
  const warnings: string[] = [];
  const consumer = new GroupMember({
    kafka,
    logger: pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) }),
    groupId,
    // A member that polls nothing for 2 × 3 s leaves the group (librdkafka's max.poll.interval).
    session: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 3000 },
    fetch: { maxWaitMs: 50 },
    topics: [input],
    partitionsConsumedConcurrently: 1,
    mode: {
      kind: 'transactional',
      transform: async (batch): Promise<OutputRecord[]> => {
        await gate?.(batch);
        const values = batch.messages.map((m) => `${member}:${m.value?.toString() ?? ''}`);
        written.push(...values);
        return values.map((value) => ({ topic: output, message: { key: 'k', value } }));
      },
    },
  });
  consumers.push(consumer);
  return { consumer, written, warnings };
}

async function produce(topic: string, values: string[]): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: values.map((value) => ({ key: 'k', value })) });
  await producer.disconnect();
}

const committedValues = async (topic: string) => (await readTopicToEnd(topic, kafka)).map((m) => m.value?.toString());

test('when a member stalls past its poll interval and its partition is taken over, then it hands its batch back and only the new owner is read', async () => {
  const [input, output, groupId] = [uniqueName('tx-in'), uniqueName('tx-out'), uniqueName('tx-group')];
  await createTopics(kafka, [{ topic: input }, { topic: output }]);
  await produce(input, ['a', 'b']);

  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let stalled = false;
  const zombie = copier('zombie', groupId, input, output, async () => {
    stalled = true;
    await released;
  });
  await zombie.consumer.start();
  await waitFor(() => stalled, 'the first member to hold the batch', 30_000);

  // The stalled member polls nothing, so it leaves the group; the second member takes the partition.
  const owner = copier('owner', groupId, input, output);
  await owner.consumer.start();
  await waitFor(async () => (await committedValues(output)).length === 2, 'the new owner to commit the batch', 60_000);

  // The zombie wakes up with what it computed: its batch is no longer its own, and nothing of it is written.
  release();
  await waitFor(() => zombie.written.length > 0, 'the zombie to finish its batch');
  await sleep(2000);
  expect(await committedValues(output)).toEqual(['owner:a', 'owner:b']);
}, 120_000);

test("when an expelled member commits a transaction with its group's offsets, then the coordinator refuses it by its generation (KIP-447)", async () => {
  const [input, output, groupId] = [uniqueName('fence-in'), uniqueName('fence-out'), uniqueName('fence-group')];
  await createTopics(kafka, [{ topic: input }, { topic: output }]);
  await produce(input, ['a']);
  const member = (name: string, handle: () => Promise<void>) => {
    let assigned: () => void = () => undefined;
    const joined = new Promise<void>((resolve) => (assigned = resolve));
    const consumer = kafka.consumer({
      groupId,
      fromBeginning: true,
      sessionTimeoutMs: 6000,
      heartbeatIntervalMs: 500,
      // A member that polls nothing for 2 × 3 s is expelled.
      rebalanceTimeoutMs: 3000,
      onRebalance: (event) => (event === 'assigned' ? assigned() : undefined),
    });
    return {
      consumer,
      joined,
      start: () =>
        consumer
          .connect()
          .then(() => consumer.subscribe({ topics: [input] }))
          .then(() => consumer.run({ eachBatch: handle })),
      name,
    };
  };
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const expelled = member('expelled', () => released);
  await expelled.start();
  await expelled.joined;
  // Another member joins and is given the partition once the first one is expelled for not polling.
  const other = member('other', () => Promise.resolve());
  await other.start();
  await other.joined;
  await waitFor(() => other.consumer.assignment().length === 1, 'the partition to move to the other member', 60_000);

  const producer = kafka.producer({ transactionalId: uniqueName('fence-tx') });
  await producer.connect();
  const transaction = await producer.transaction();
  await transaction.send({ topic: output, messages: [{ key: 'k', value: 'late' }] });
  const offsets = [{ topic: input, partitions: [{ partition: 0, offset: '1' }] }];
  const refused = await transaction
    .sendOffsets({ consumer: expelled.consumer, topics: offsets })
    .then(() => transaction.commit())
    .then(
      () => undefined,
      (error: unknown) => error,
    );
  await transaction.abort().catch(() => undefined);
  await producer.disconnect();
  release();
  await Promise.all([expelled.consumer.disconnect(), other.consumer.disconnect()]);
  expect(String(refused)).toMatch(/generation|member/i);
  expect(await committedValues(output)).toEqual([]);
}, 120_000);

test('when a member is killed with its transaction open, then the group goes on once the transaction times out, and only the new owner is read', async () => {
  const [input, output, groupId] = [uniqueName('crash-in'), uniqueName('crash-out'), uniqueName('crash-group')];
  await createTopics(kafka, [{ topic: input }, { topic: output }]);
  await produce(input, ['a', 'b']);

  // A member in another process writes the batch and its offsets in a transaction of 5 s, and dies before committing.
  const child = spawn(process.execPath, [path.join(__dirname, 'open-transaction-child.js'), input, output, groupId], {
    env: process.env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const open = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => (chunk.toString().includes('open') ? resolve() : undefined));
    child.on('exit', (code) => reject(new Error(`the member exited (${code}) before its transaction was open`)));
  });
  await open;
  child.kill('SIGKILL');
  const killedAt = Date.now();

  const owner = copier('owner', groupId, input, output);
  await owner.consumer.start();
  await waitFor(async () => (await committedValues(output)).length === 2, 'the new owner to commit the batch', 90_000);
  // The dead member's records stay invisible: its transaction was aborted, not committed.
  expect(await committedValues(output)).toEqual(['owner:a', 'owner:b']);
  // Transaction timeout (5 s) + the coordinator's sweep for timed-out transactions (every 10 s) + a rejoin.
  console.log(`the group went on ${Date.now() - killedAt} ms after the member with an open transaction was killed`);
}, 120_000);
