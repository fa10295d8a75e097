import { ApiKeyHasher, generateApiKey, looksLikeApiKey } from '../src/api-keys';
import { generateKeyringValue, parseKeyring } from '@hookstream/runtime';

describe('inbound API keys', () => {
  test('a new key has the recognisable prefix, 256 bits of randomness, and a display prefix that is not the key', () => {
    const { key, keyId, displayPrefix } = generateApiKey();
    expect(key).toMatch(/^hsk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice(4), 'base64url')).toHaveLength(32);
    expect(looksLikeApiKey(key)).toBe(true);
    expect(keyId).toMatch(/^key_[0-9a-f]{12}$/);
    expect(key.startsWith(displayPrefix.replace('…', ''))).toBe(true);
    expect(displayPrefix.length).toBeLessThan(12);
    expect(new Set(Array.from({ length: 100 }, () => generateApiKey().key)).size).toBe(100);
  });

  test('the stored hash is a keyed HMAC: other peppers give other hashes, and the key is not in it', () => {
    const { key } = generateApiKey();
    const a = new ApiKeyHasher(parseKeyring(generateKeyringValue('p1'), 'peppers', 32));
    const b = new ApiKeyHasher(parseKeyring(generateKeyringValue('p1'), 'peppers', 32));
    const hashed = a.hash(key);
    expect(hashed.pepperId).toBe('p1');
    expect(hashed.hash).not.toContain(key.slice(4, 20));
    expect(hashed.hash).not.toBe(b.hash(key).hash);
    expect(ApiKeyHasher.same(hashed.hash, a.hash(key).hash)).toBe(true);
    expect(ApiKeyHasher.same(hashed.hash, a.hash(generateApiKey().key).hash)).toBe(false);
    expect(ApiKeyHasher.same(hashed.hash, 'short')).toBe(false);
  });

  test('after a pepper rotation, keys hashed under the old pepper are still found', () => {
    const old = generateKeyringValue('p1');
    const { key } = generateApiKey();
    const stored = new ApiKeyHasher(parseKeyring(old, 'peppers', 32)).hash(key);
    const rotated = new ApiKeyHasher(parseKeyring(`${generateKeyringValue('p2')},${old}`, 'peppers', 32));
    expect(rotated.hash(key).pepperId).toBe('p2');
    expect(rotated.candidates(key)).toContainEqual(stored);
  });

  test('the hashes of recently presented keys are remembered, for a bounded number of keys', () => {
    const hasher = new ApiKeyHasher(parseKeyring(generateKeyringValue('p1'), 'peppers', 32));
    const { key } = generateApiKey();
    const first = hasher.candidates(key);
    expect(first).toEqual([hasher.hash(key)]);
    expect(hasher.candidates(key)).toBe(first); // the same array: not hashed again
    for (let i = 0; i < ApiKeyHasher.RECENT_KEYS; i++) hasher.candidates(`hsk_${String(i).padStart(43, '0')}`);
    const again = hasher.candidates(key); // the oldest was evicted: hashed again, to the same value
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });

  test.each(['', 'hsk_', 'hsk_short', 'sk_live_0123456789012345678901234567890123456789012', `hsk_${'a'.repeat(42)}!`])(
    '%p does not look like a key',
    (value) => {
      expect(looksLikeApiKey(value)).toBe(false);
    },
  );
});
