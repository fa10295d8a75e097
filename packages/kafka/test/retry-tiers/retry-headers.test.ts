import { RetryHeaders, dueAtOf, headerCount, originOf, retryHeaders, retryHistoryOf } from '../../src/retry-tiers/retry-headers';
import { RetryTiers } from '../../src/retry-tiers/retry-tiers';

const record = (topic: string, headers: Record<string, string | Buffer> = {}) => ({
  topic,
  partition: 3,
  message: { offset: '42', headers },
});

describe('retryHistoryOf', () => {
  test('reads attempts, skips and the first failure; a record without them (first read) or with garbage has none', () => {
    expect(
      retryHistoryOf({
        'hookstream-attempts': Buffer.from('3'),
        'hookstream-skips': Buffer.from('2'),
        'hookstream-first-failure-at': '1700000000000',
      }),
    ).toEqual({ attempts: 3, skips: 2, firstFailureAt: 1_700_000_000_000 });
    expect(retryHistoryOf(undefined)).toEqual({ attempts: 0, skips: 0, firstFailureAt: null });
    expect(retryHistoryOf({ 'hookstream-attempts': 'x', 'hookstream-skips': '-1', 'hookstream-first-failure-at': 'y' })).toEqual({
      attempts: 0,
      skips: 0,
      firstFailureAt: null,
    });
  });

  test('headerCount is null for an absent, negative, fractional or unsafe number', () => {
    expect(headerCount({ a: '7' }, 'a')).toBe(7);
    for (const text of ['-1', '1.5', '1e400', 'seven']) expect(headerCount({ a: text }, 'a')).toBeNull();
    expect(headerCount({}, 'a')).toBeNull();
  });
});

describe('originOf', () => {
  test('is the record itself where it was first read, and what a tier record carries', () => {
    expect(originOf(record('callback-requests'), false)).toEqual({ topic: 'callback-requests', partition: 3, offset: '42' });
    const carried = {
      [RetryHeaders.originalTopic]: 'callback-requests',
      [RetryHeaders.originalPartition]: '9',
      [RetryHeaders.originalOffset]: '7',
    };
    expect(originOf(record('retry-2', carried), true)).toEqual({ topic: 'callback-requests', partition: 9, offset: '7' });
    // Headers on a first read are not trusted: whoever wrote the record wrote them.
    expect(originOf(record('callback-requests', carried), false)).toEqual({ topic: 'callback-requests', partition: 3, offset: '42' });
  });

  test('a tier record whose headers are missing or garbage is its own origin (never a NaN partition or an unparsable offset)', () => {
    const bad = { [RetryHeaders.originalPartition]: '-1', [RetryHeaders.originalOffset]: 'x' };
    expect(originOf(record('retry-1', bad), true)).toEqual({ topic: 'retry-1', partition: 3, offset: '42' });
    expect(originOf(record('retry-1'), true)).toEqual({ topic: 'retry-1', partition: 3, offset: '42' });
  });
});

describe('retryHeaders', () => {
  const origin = { topic: 'partner-events', partition: 1, offset: '5' };

  test('a failed attempt going into a tier: origin, attempts, due time, first failure kept, last failure now', () => {
    const headers = retryHeaders({ origin, attempts: 2, firstFailureAt: 1_000, dueAt: 9_000, lastError: 'HTTP 500', now: 4_000 });
    expect(headers).toEqual({
      [RetryHeaders.originalTopic]: 'partner-events',
      [RetryHeaders.originalPartition]: '1',
      [RetryHeaders.originalOffset]: '5',
      [RetryHeaders.attempts]: '2',
      [RetryHeaders.firstFailureAt]: '1000',
      [RetryHeaders.dueAt]: '9000',
      [RetryHeaders.lastFailureAt]: '4000',
      [RetryHeaders.lastError]: 'HTTP 500',
    });
    expect(dueAtOf(headers)).toBe(9_000);
  });

  test('the first failure starts the wait now, as does one in the future; a skip records no failure; errors are cut to 500 characters', () => {
    expect(retryHeaders({ origin, attempts: 1, firstFailureAt: null, now: 4_000 })[RetryHeaders.firstFailureAt]).toBe('4000');
    expect(retryHeaders({ origin, attempts: 1, firstFailureAt: 9_999, now: 4_000 })[RetryHeaders.firstFailureAt]).toBe('4000');
    const skipped = retryHeaders({ origin, attempts: 1, skips: 2, firstFailureAt: 1, dueAt: 5, now: 4 });
    expect(skipped[RetryHeaders.skips]).toBe('2');
    expect(skipped[RetryHeaders.lastError]).toBeUndefined();
    expect(skipped[RetryHeaders.lastFailureAt]).toBeUndefined();
    const long = retryHeaders({ origin, attempts: 1, firstFailureAt: null, lastError: 'x'.repeat(900), now: 4 });
    expect(String(long[RetryHeaders.lastError])).toHaveLength(500);
    // Into the dead-letter topic: no due time.
    expect(long[RetryHeaders.dueAt]).toBeUndefined();
  });
});

describe('RetryTiers', () => {
  test('names its topics in tier order, tells a tier from another topic, and holds tier records until their due time', () => {
    const tiers = new RetryTiers((tier) => `p.retry-${tier}`, 3);
    expect(tiers.topics).toEqual(['p.retry-1', 'p.retry-2', 'p.retry-3']);
    expect(tiers.tierOf('p.retry-2')).toBe(2);
    expect(tiers.tierOf('p.callback-requests')).toBeUndefined();
    expect(tiers.isTier('p.retry-4')).toBe(false);
    expect(tiers.delayed.topics).toEqual(tiers.topics);
    const message = { key: null, value: null, offset: '0', timestamp: '0', headers: { [RetryHeaders.dueAt]: '1234' } };
    expect(tiers.delayed.dueAt('p.retry-1', message)).toBe(1_234);
  });
});
