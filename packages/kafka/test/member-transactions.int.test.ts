import { MemberTransactions } from '../src/group-member/member-transactions';
import type { Kafka } from '../src/client';
import type { Consumer } from '../src/types';
import { createTopics, readTopicToEnd, testKafka, uniqueName } from '../../../test/helpers/infrastructure';

/**
 * A member's transaction against a real broker, on the path only a refused record takes: the
 * transaction ends with neither its records nor its offsets counted, by an abort (the producer is
 * kept, not thrown away and its transactional id fenced), and the next transaction commits both.
 */
const kafka = testKafka();
const closers: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close().catch(() => undefined)));
});

/** A member of `groupId` holding `topic`'s partition: its group metadata is what the offsets carry. */
async function joinedMember(groupId: string, topic: string): Promise<Consumer> {
  let joined: () => void = () => undefined;
  const assigned = new Promise<void>((resolve) => (joined = resolve));
  const member = kafka.consumer({
    groupId,
    onRebalance: (event) => {
      if (event === 'assigned') joined();
    },
  });
  closers.push(() => member.disconnect());
  await member.connect();
  await member.subscribe({ topics: [topic] });
  await member.run({ eachBatch: () => Promise.resolve() });
  await assigned;
  return member;
}

/** The client, counting the producers made from it (each one a transactional id opened anew). */
function countingProducers(client: Kafka): { client: Kafka; made: () => number } {
  let made = 0;
  const counted = Object.create(client) as Kafka;
  counted.producer = (options) => {
    made += 1;
    return client.producer(options);
  };
  return { client: counted, made: () => made };
}

async function committedOffset(groupId: string, topic: string): Promise<string | undefined> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return offsets?.partitions.find((p) => p.partition === 0)?.offset;
  } finally {
    await admin.disconnect();
  }
}

test('when a record of a transaction is refused, then the transaction is aborted with neither its records nor its offsets counted, its producer kept, and the next one commits both', async () => {
  const [input, output, groupId] = [uniqueName('mt-in'), uniqueName('mt-out'), uniqueName('mt-group')];
  await createTopics(kafka, [{ topic: input }, { topic: output }]);
  const member = await joinedMember(groupId, input);
  const producers = countingProducers(kafka);
  const transactions = new MemberTransactions(producers.client, { groupId });
  closers.push(() => transactions.close());
  await transactions.open();
  const offsetsAt = (offset: string) => [{ topic: input, partitions: [{ partition: 0, offset }] }];

  // Larger than librdkafka takes (message.max.bytes, 1,000,000 by default): refused as it is written.
  const tooLarge = { topic: output, message: { key: 'k', value: Buffer.alloc(1_100_000, 1) } };
  const refused = await transactions
    .commit([{ topic: output, message: { key: 'k', value: 'first' } }, tooLarge], offsetsAt('5'), member)
    .then(
      () => undefined,
      (error: unknown) => error,
    );
  expect(String(refused)).toMatch(/too large/i);
  expect(await committedOffset(groupId, input)).not.toBe('5');

  await transactions.commit([{ topic: output, message: { key: 'k', value: 'second' } }], offsetsAt('7'), member);
  expect((await readTopicToEnd(output, kafka)).map((m) => m.value?.toString())).toEqual(['second']);
  expect(await committedOffset(groupId, input)).toBe('7');
  // The failed transaction was aborted, not ended by throwing its producer away and fencing it.
  expect(producers.made()).toBe(1);
}, 60_000);
