import pino from 'pino';
import type { Kafka } from '../../src/client';
import { joinGroup } from '../../src/group-member/member-session';
import type { ConsumerOptions } from '../../src/client-options';
import type { ConsumerRunConfig, EachBatchPayload, TopicPartition } from '../../src/types';
import { fakeBatch } from './fake-batch';

/**
 * A GroupMember's per-partition state hooks, on a stand-in for the native consumer: the test plays
 * the rebalances and hands the batches over as the native consumer would.
 */
async function memberWithState(handle: (payload: EachBatchPayload) => Promise<void>) {
  const calls: string[] = [];
  const restores = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
  let options: ConsumerOptions | undefined;
  let run: ConsumerRunConfig | undefined;
  const kafka = {
    consumer: (given: ConsumerOptions) => {
      options = given;
      return {
        connect: () => Promise.resolve(),
        subscribe: () => Promise.resolve(),
        run: (config: ConsumerRunConfig) => ((run = config), Promise.resolve()),
        disconnect: () => Promise.resolve(),
      };
    },
  } as unknown as Kafka;
  await joinGroup({
    kafka,
    logger: pino({ level: 'silent' }),
    groupId: 'unit',
    session: { sessionTimeoutMs: 10_000, heartbeatIntervalMs: 1_000 },
    topics: ['requests'],
    autoCommit: false,
    partitionsConsumedConcurrently: 2,
    eachBatch: handle,
    partitionState: {
      restore: ({ topic, partition }) => {
        calls.push(`restore ${topic}/${partition}`);
        return new Promise((resolve, reject) => restores.set(`${topic}/${partition}`, { resolve, reject }));
      },
      drop: ({ topic, partition }) => void calls.push(`drop ${topic}/${partition}`),
    },
  });
  const rebalance = (event: 'assigned' | 'revoked', partitions: TopicPartition[]) => options!.onRebalance!(event, partitions);
  const batch = (partition: number, stale = () => false) => {
    const payload = fakeBatch(1);
    return run!.eachBatch!({ ...payload, batch: { ...payload.batch, partition }, isStale: stale });
  };
  return { calls, restores, rebalance, batch };
}

/** Lets the restores asked for start (a restore is called in a microtask). */
const turn = () => new Promise((resolve) => setImmediate(resolve));

const p0 = { topic: 'requests', partition: 0 };
const p1 = { topic: 'requests', partition: 1 };

test('when partitions are assigned, then each is restored at once and its first batch waits for its own restore only', async () => {
  const handled: number[] = [];
  const member = await memberWithState(({ batch }) => (handled.push(batch.partition), Promise.resolve()));
  await member.rebalance('assigned', [p0, p1]);
  await turn();
  expect(member.calls).toEqual(['restore requests/0', 'restore requests/1']);

  const first = member.batch(0);
  const second = member.batch(1);
  member.restores.get('requests/1')!.resolve();
  await second;
  expect(handled).toEqual([1]);
  member.restores.get('requests/0')!.resolve();
  await first;
  expect(handled).toEqual([1, 0]);
  // Restored once per assignment: later batches do not restore again.
  await member.batch(0);
  expect(member.calls).toEqual(['restore requests/0', 'restore requests/1']);
});

test('when a restore fails, then the batch fails (it is read again) and the next batch restores again', async () => {
  const member = await memberWithState(() => Promise.resolve());
  await member.rebalance('assigned', [p0]);
  await turn();
  const first = member.batch(0);
  member.restores.get('requests/0')!.reject(new Error('store away'));
  await expect(first).rejects.toThrow('store away');
  const again = member.batch(0);
  await turn();
  member.restores.get('requests/0')!.resolve();
  await again;
  expect(member.calls).toEqual(['restore requests/0', 'restore requests/0']);
});

test('when partitions are revoked, then the rebalance waits for their batches in hand and drops their state after them', async () => {
  let finish = () => undefined as void;
  const member = await memberWithState(() => new Promise<void>((resolve) => (finish = resolve)));
  await member.rebalance('assigned', [p0]);
  await turn();
  member.restores.get('requests/0')!.resolve();
  const inHand = member.batch(0);
  await turn();
  let revoked = false;
  const revoking = Promise.resolve(member.rebalance('revoked', [p0])).then(() => (revoked = true));
  await turn();
  expect(revoked).toBe(false);
  expect(member.calls).toEqual(['restore requests/0']);
  finish();
  await Promise.all([inHand, revoking]);
  expect(member.calls).toEqual(['restore requests/0', 'drop requests/0']);
});

test('when a stale batch comes after a revocation, then nothing is restored for it', async () => {
  const member = await memberWithState(() => Promise.resolve());
  await member.rebalance('assigned', [p0]);
  await turn();
  member.restores.get('requests/0')!.resolve();
  await member.rebalance('revoked', [p0]);
  await member.batch(0, () => true);
  expect(member.calls).toEqual(['restore requests/0', 'drop requests/0']);
});

test('when an idle partition is revoked while its restore is under way, then its state is dropped only once the restore has ended', async () => {
  const member = await memberWithState(() => Promise.resolve());
  await member.rebalance('assigned', [p0]);
  await turn();
  let revoked = false;
  const revoking = Promise.resolve(member.rebalance('revoked', [p0])).then(() => (revoked = true));
  await turn();
  expect(member.calls).toEqual(['restore requests/0']);
  expect(revoked).toBe(false);
  member.restores.get('requests/0')!.resolve();
  await revoking;
  expect(member.calls).toEqual(['restore requests/0', 'drop requests/0']);
});

test('when a restore moves the partition (its batch in hand turns stale), then that batch is not handled', async () => {
  const handled: number[] = [];
  const member = await memberWithState(async (payload) => void handled.push(payload.batch.partition));
  await member.rebalance('assigned', [p0]);
  await turn();
  let stale = false;
  const first = member.batch(0, () => stale);
  stale = true; // the restore sought the partition elsewhere
  member.restores.get('requests/0')!.resolve();
  await first;
  await member.batch(0);
  expect(handled).toEqual([0]);
});
