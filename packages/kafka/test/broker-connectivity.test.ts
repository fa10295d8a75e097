import { BrokerConnectivity } from '../src/broker-connectivity';
import type { ClientStatistics } from '../src/types';

/** librdkafka's statistics with these brokers' states and these topics' partition leaders. */
function stats(brokers: Record<number, string>, topics: Record<string, number[]> = {}): ClientStatistics {
  return {
    brokers: {
      // The bootstrap address: never a leader, whatever its state.
      'localhost:9092/bootstrap': { nodeid: -1, state: 'UP', tx: 0, rx: 0, rxidle: 0 },
      ...Object.fromEntries(
        Object.entries(brokers).map(([id, state]) => [`b${id}:9092/${id}`, { nodeid: Number(id), state, tx: 0, rx: 0, rxidle: 0 }]),
      ),
    },
    topics: Object.fromEntries(
      Object.entries(topics).map(([topic, leaders]) => [
        topic,
        {
          partitions: Object.fromEntries([
            ['-1', { leader: -1, fetch_state: 'none', app_offset: -1, ls_offset: -1 }],
            ...leaders.map((leader, partition) => [String(partition), { leader, fetch_state: 'none', app_offset: -1, ls_offset: -1 }]),
          ]),
        },
      ]),
    ),
  };
}

test('before any statistics, then every topic counts as writable (the write itself will tell)', () => {
  const connectivity = new BrokerConnectivity();
  expect(connectivity.writable(['t'])).toBe(true);
  expect(connectivity.reachable('t')).toBe(true);
});

test("when one partition's leader is down, then the topic is reachable but not writable; when all are, neither", () => {
  const connectivity = new BrokerConnectivity();
  connectivity.update(stats({ 1: 'UP', 2: 'DOWN' }, { t: [1, 2] }));
  expect(connectivity.writable(['t'])).toBe(false);
  expect(connectivity.reachable('t')).toBe(true);
  connectivity.update(stats({ 1: 'TRY_CONNECT', 2: 'DOWN' }, { t: [1, 2] }));
  expect(connectivity.reachable('t')).toBe(false);
  connectivity.update(stats({ 1: 'UP', 2: 'UP' }, { t: [1, 2] }));
  expect(connectivity.writable(['t'])).toBe(true);
});

test('when a partition has no leader, then its topic is not writable', () => {
  const connectivity = new BrokerConnectivity();
  connectivity.update(stats({ 1: 'UP' }, { t: [1, -1] }));
  expect(connectivity.writable(['t'])).toBe(false);
  expect(connectivity.reachable('t')).toBe(true);
});

test('for a topic not written yet, then it is writable while any broker (not a bootstrap address) is up', () => {
  const connectivity = new BrokerConnectivity();
  connectivity.update(stats({ 1: 'DOWN' }));
  expect(connectivity.writable(['never-written'])).toBe(false);
  connectivity.update(stats({ 1: 'UP' }));
  expect(connectivity.writable(['never-written'])).toBe(true);
});
