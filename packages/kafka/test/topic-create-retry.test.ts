/** Creating topics while the cluster's only broker is fenced (it missed its heartbeats) is retried, not failed. */
import { ensureTopics } from '../src/topic-admin';
import type { ResolvedTopic } from '../src/topics';
import type { Admin } from '../src/types';

const topic = { topic: 't.policy-status', partitions: 3, replicationFactor: 1, config: {} } as unknown as ResolvedTopic;

/** An admin whose createTopics fails `failures` times with `message`, then creates. */
function adminFailing(failures: number, message: string) {
  const created: string[] = [];
  let calls = 0;
  const admin = {
    listTopics: () => Promise.resolve([...created]),
    createTopics: ({ topics }: { topics: Array<{ topic: string }> }) => {
      calls += 1;
      if (calls <= failures) return Promise.reject(new Error(message));
      created.push(...topics.map((t) => t.topic));
      return Promise.resolve(true);
    },
  } as unknown as Admin;
  return { admin, calls: () => calls };
}

test('when every broker is fenced for a while, then the topics are created once it is not', async () => {
  const fenced = adminFailing(
    2,
    'Unable to replicate the partition 1 time(s): All brokers are currently fenced, or have all their log directories cordoned.',
  );
  expect(await ensureTopics(fenced.admin, [topic])).toEqual([{ topic: 't.policy-status', outcome: 'created', drift: [] }]);
  expect(fenced.calls()).toBe(3);
});

test('when the replication factor is really wrong, then it fails at once', async () => {
  const wrong = adminFailing(5, 'Replication factor: 3 larger than available brokers: 1.');
  await expect(ensureTopics(wrong.admin, [topic])).rejects.toThrow(/larger than available brokers/);
  expect(wrong.calls()).toBe(1);
});
