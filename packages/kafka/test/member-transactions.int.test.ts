import { MemberTransactions } from '../src/group-member/member-transactions';
import type { Kafka } from '../src/client';
import type { ProducerOptions } from '../src/client-options';
import type { Consumer } from '../src/types';
import { createTopics, readTopicToEnd, testKafka, uniqueName } from '../../../test/helpers/infrastructure';

/**
 * A member's transaction against a real broker, on the path only a refused record takes: the
 * transaction ends with neither its records nor its offsets counted, by an abort (the producer is
 * kept, not thrown away and its transactional id fenced), and a later transaction commits both.
 * Seen with librdkafka 2.15.1: the transaction right after such an abort may fail too, its record
 * purged ("Local: Purged in queue") and nothing of it counted; the one after commits. A member
 * reads such a round's records again from its last commit (rewinds.ts), so nothing is lost or
 * written twice; the test allows that one failure and checks the record is written once.
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

/** The client, noting the options of each producer made from it (each one a transactional id opened anew). */
function countingProducers(client: Kafka): { client: Kafka; made: () => ProducerOptions[] } {
  const made: ProducerOptions[] = [];
  const counted = Object.create(client) as Kafka;
  counted.producer = (options) => {
    made.push(options ?? {});
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

test('when a record of a transaction is refused, then the transaction is aborted with neither its records nor its offsets counted, its producer kept, and a later one commits both', async () => {
  const [input, output, groupId] = [uniqueName('mt-in'), uniqueName('mt-out'), uniqueName('mt-group')];
  // The broker refuses a batch over 1,000 bytes: a refusal that comes back in a delivery report.
  await createTopics(kafka, [{ topic: input }, { topic: output, config: { 'max.message.bytes': '1000' } }]);
  const member = await joinedMember(groupId, input);
  const producers = countingProducers(kafka);
  const transactions = new MemberTransactions(producers.client, { groupId });
  closers.push(() => transactions.close());
  await transactions.open();
  const offsetsAt = (offset: string) => [{ topic: input, partitions: [{ partition: 0, offset }] }];

  const tooLarge = { topic: output, message: { key: 'k', value: Buffer.alloc(2_000, 1) } };
  const refused = await transactions
    .commit([{ topic: output, message: { key: 'k', value: 'first' } }, tooLarge], offsetsAt('5'), member)
    .then(
      () => undefined,
      (error: unknown) => error,
    );
  expect(String(refused)).toMatch(/too large/i);
  expect(await committedOffset(groupId, input)).not.toBe('5');

  const tries: string[] = [];
  for (let attempt = 1; attempt <= 3 && tries.at(-1) !== 'committed'; attempt++) {
    const outcome = await transactions.commit([{ topic: output, message: { key: 'k', value: 'second' } }], offsetsAt('7'), member).then(
      () => 'committed',
      (error: unknown) => String(error),
    );
    tries.push(outcome);
  }
  expect(tries.at(-1)).toBe('committed');
  expect(tries.slice(0, -1).every((failed) => /purged/i.test(failed))).toBe(true);
  expect(tries.length).toBeLessThanOrEqual(2);
  expect((await readTopicToEnd(output, kafka)).map((m) => m.value?.toString())).toEqual(['second']);
  expect(await committedOffset(groupId, input)).toBe('7');
  // The failed transaction was aborted, not ended by throwing its producer away and fencing it.
  expect(producers.made()).toHaveLength(1);
  // Sent at once: the offsets wait for the records' acknowledgement, so a linger would be added to
  // every transaction (npm run bench:transaction).
  expect(producers.made()[0]).toMatchObject({ lingerMs: 0 });
}, 60_000);
