import { cacheCoordinatorLookups, type KafkajsCluster } from '../../src/kafka/cached-coordinators';

/** A stand-in for kafkajs's Cluster: counts lookups; each answers with the node it was told to. */
function fakeCluster() {
  const state = { lookups: 0, refreshes: 0, node: 1, failNext: false };
  const cluster: KafkajsCluster = {
    async findGroupCoordinatorMetadata() {
      state.lookups += 1;
      if (state.failNext) {
        state.failNext = false;
        throw new Error('GROUP_COORDINATOR_NOT_AVAILABLE');
      }
      return { coordinator: { nodeId: state.node } };
    },
    async refreshMetadata() {
      state.refreshes += 1;
    },
  };
  return { cluster, state };
}

const TRANSACTION = { groupId: 'txn-1', coordinatorType: 1 };

test('given repeated lookups within the time limit, then the broker is asked once and every caller gets its answer', async () => {
  const { cluster, state } = fakeCluster();
  let clock = 0;
  cacheCoordinatorLookups(cluster, 5_000, () => clock);
  const answers = await Promise.all([1, 2, 3].map(() => cluster.findGroupCoordinatorMetadata(TRANSACTION)));
  clock = 4_999;
  answers.push(await cluster.findGroupCoordinatorMetadata(TRANSACTION));
  expect(state.lookups).toBe(1);
  expect(answers).toEqual(Array(4).fill({ coordinator: { nodeId: 1 } }));
});

test('given the time limit passed, then the broker is asked again and the new node is used', async () => {
  const { cluster, state } = fakeCluster();
  let clock = 0;
  cacheCoordinatorLookups(cluster, 5_000, () => clock);
  await cluster.findGroupCoordinatorMetadata(TRANSACTION);
  state.node = 2;
  clock = 5_000;
  expect(await cluster.findGroupCoordinatorMetadata(TRANSACTION)).toEqual({ coordinator: { nodeId: 2 } });
  expect(state.lookups).toBe(2);
});

test('given different groups or coordinator types, then each has its own entry', async () => {
  const { cluster, state } = fakeCluster();
  cacheCoordinatorLookups(cluster, 5_000, () => 0);
  await cluster.findGroupCoordinatorMetadata(TRANSACTION);
  await cluster.findGroupCoordinatorMetadata({ groupId: 'txn-1', coordinatorType: 0 });
  await cluster.findGroupCoordinatorMetadata({ groupId: 'txn-1' }); // type 0 is kafkajs's default
  await cluster.findGroupCoordinatorMetadata({ groupId: 'txn-2', coordinatorType: 1 });
  expect(state.lookups).toBe(3);
});

test('given a failed lookup, then it is not kept: the next caller asks the broker again', async () => {
  const { cluster, state } = fakeCluster();
  cacheCoordinatorLookups(cluster, 5_000, () => 0);
  state.failNext = true;
  await expect(cluster.findGroupCoordinatorMetadata(TRANSACTION)).rejects.toThrow('GROUP_COORDINATOR_NOT_AVAILABLE');
  expect(await cluster.findGroupCoordinatorMetadata(TRANSACTION)).toEqual({ coordinator: { nodeId: 1 } });
  expect(state.lookups).toBe(2);
});

test('given a metadata refresh (kafkajs makes one after errors that suggest the cluster changed), then the cache is emptied', async () => {
  const { cluster, state } = fakeCluster();
  cacheCoordinatorLookups(cluster, 5_000, () => 0);
  await cluster.findGroupCoordinatorMetadata(TRANSACTION);
  state.node = 3;
  await cluster.refreshMetadata();
  expect(state.refreshes).toBe(1);
  expect(await cluster.findGroupCoordinatorMetadata(TRANSACTION)).toEqual({ coordinator: { nodeId: 3 } });
});
