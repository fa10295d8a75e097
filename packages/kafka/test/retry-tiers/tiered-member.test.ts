import pino from 'pino';
import type { Kafka } from '../../src/client';
import { GroupMember } from '../../src/group-member';
import { RetryTiers } from '../../src/retry-tiers/retry-tiers';

const NOW = 5_000_000;

/** A GroupMember with retry tiers, not started: the tiers' group's held records are stood in for by `heldDueTimes`. */
function tieredHolding(heldDueTimes: Map<string, number>): GroupMember {
  const consumers = new GroupMember({
    kafka: {} as Kafka,
    logger: pino({ level: 'silent' }),
    groupId: 'p.sender',
    session: { sessionTimeoutMs: 10_000, heartbeatIntervalMs: 1_000 },
    topics: ['p.callback-requests'],
    mode: {
      kind: 'concurrent',
      tiers: new RetryTiers((tier) => `p.retry-${tier}`, 8),
      partitionConcurrency: 16,
      handle: () => Promise.reject(new Error('not called')),
      now: () => NOW,
    },
  });
  // Stands for the tiers' group holding records (the concurrent mode's own tests cover how it finds them).
  (consumers as unknown as { retries: { heldDueTimes: () => Map<string, number> } }).retries.heldDueTimes = () => heldDueTimes;
  return consumers;
}

test('the first topic and the tiers are read by two groups, the tiers’ named after the first', () => {
  expect(tieredHolding(new Map()).groups).toEqual([
    { groupId: 'p.sender', topics: ['p.callback-requests'] },
    {
      groupId: 'p.sender-retries',
      topics: ['p.retry-1', 'p.retry-2', 'p.retry-3', 'p.retry-4', 'p.retry-5', 'p.retry-6', 'p.retry-7', 'p.retry-8'],
    },
  ]);
});

test('when tiers hold records past and before their due times, then each tier reports how far past it is, 0 for the others', () => {
  const consumers = tieredHolding(
    new Map([
      ['p.retry-2', NOW - 1_500],
      ['p.retry-5', NOW + 60_000],
    ]),
  );
  expect(consumers.retryOverdueSeconds()).toEqual(new Map([1, 2, 3, 4, 5, 6, 7, 8].map((tier) => [tier, tier === 2 ? 1.5 : 0])));
});
