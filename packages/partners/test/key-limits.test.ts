import { KEY_LIMITS, keptKeys, refusePartnerIssueBeyondDaily, refuseTooManyLiveKeys } from '../src/key-limits';
import type { InboundApiKey } from '../src/model';

const now = 1_800_000_000_000;
const hour = 3_600_000;
const key = (id: number, fields: Partial<InboundApiKey> = {}): InboundApiKey => ({
  key_id: `key_${id}`,
  key_hash: 'h',
  hash_key_id: 'p1',
  display_prefix: 'hsk_…',
  created_at: now - 48 * hour,
  expires_at: null,
  revoked_at: null,
  ...fields,
});

test('when a record is written, then keys that no longer work and were issued over a day ago leave it, and working ones stay', () => {
  const keys = [
    key(1),
    key(2, { revoked_at: now - hour }),
    key(3, { expires_at: now - hour }),
    key(4, { revoked_at: now - hour, created_at: now - hour }),
    key(5, { expires_at: now + hour }),
  ];
  expect(keptKeys(keys, now).map((k) => k.key_id)).toEqual(['key_1', 'key_4', 'key_5']);
});

test('when more keys than the record holds were issued within a day, then the oldest that no longer work are dropped first', () => {
  const dead = Array.from({ length: 30 }, (_, i) => key(i, { created_at: now - hour + i, revoked_at: now - 1 }));
  const kept = keptKeys([key(100), ...dead], now);
  expect(kept).toHaveLength(KEY_LIMITS.inRecord);
  expect(kept[0]!.key_id).toBe('key_100');
  expect(kept.at(-1)!.key_id).toBe('key_29');
});

test('when a change would leave more keys working than the limit, then it is refused as a conflict', () => {
  const live = Array.from({ length: KEY_LIMITS.live }, (_, i) => key(i));
  expect(() => refuseTooManyLiveKeys(live, now)).not.toThrow();
  expect(() => refuseTooManyLiveKeys([...live, key(99)], now)).toThrow(expect.objectContaining({ kind: 'conflict' }));
  expect(() => refuseTooManyLiveKeys([...live, key(99, { expires_at: now })], now)).not.toThrow();
});

test('when the day’s keys are issued, then a partner’s rotation is refused until the oldest of them leaves the day', () => {
  const issued = Array.from({ length: KEY_LIMITS.partnerIssuesPerDay }, (_, i) => key(i, { created_at: now - 10 * hour + i * hour }));
  expect(() => refusePartnerIssueBeyondDaily(issued.slice(1), now)).not.toThrow();
  let refusal: unknown;
  try {
    refusePartnerIssueBeyondDaily(issued, now);
  } catch (error) {
    refusal = error;
  }
  expect(refusal).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 14 * 3600 });
});
