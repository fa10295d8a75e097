import type { Admin } from '../src/types';
import { clusterReplicationFactor, replicationFactorFor } from '../src/topic-admin';
import { topicCatalogue } from '../src/topics';

describe('replicationFactorFor', () => {
  test.each([
    [1, 1, 1], // the local single broker: unchanged
    [2, 1, 2],
    [3, 1, 3], // a 3-broker cluster whose operator kept Kafka's default of 1
    [6, 1, 3],
    [2, 3, 3], // one node of three away: still three wanted, not two
    [5, 5, 5], // an operator's higher default wins
  ])('when %i live brokers and default.replication.factor %i, then %i replicas', (live, brokerDefault, expected) => {
    expect(replicationFactorFor(live, brokerDefault)).toBe(expected);
  });
});

describe('clusterReplicationFactor', () => {
  const brokers = (count: number) => Array.from({ length: count }, (_, i) => ({ nodeId: i + 1, host: '127.0.0.1', port: 9092 + i }));
  const fakeAdmin = (live: number, describeBrokerConfig: () => Promise<Map<string, string>>) =>
    ({
      describeCluster: () => Promise.resolve({ brokers: brokers(live), controller: 1, clusterId: 'c' }),
      describeBrokerConfig,
    }) as unknown as Admin;

  test('when the broker default is readable, then it counts with the live brokers', async () => {
    const admin = fakeAdmin(2, () => Promise.resolve(new Map([['default.replication.factor', '3']])));
    expect(await clusterReplicationFactor(admin)).toBe(3);
  });

  test('when the broker config cannot be read (no permission), then the live brokers alone decide', async () => {
    const admin = fakeAdmin(3, () => Promise.reject(new Error('CLUSTER_AUTHORIZATION_FAILED')));
    expect(await clusterReplicationFactor(admin)).toBe(3);
  });
});

describe('topicCatalogue', () => {
  test('when 3 replicas, then every topic wants min.insync.replicas 2; with 1 replica, 1', () => {
    expect(
      topicCatalogue({ replicationFactor: 3 }).every((t) => t.replicationFactor === 3 && t.config['min.insync.replicas'] === '2'),
    ).toBe(true);
    expect(topicCatalogue().every((t) => t.replicationFactor === 1 && t.config['min.insync.replicas'] === '1')).toBe(true);
  });
});
