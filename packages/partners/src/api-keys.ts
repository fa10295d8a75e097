import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { DataKey } from '@hookstream/runtime';

/**
 * Inbound API keys: `hsk_` + 43 base64url characters (32 random bytes, 256 bits). The fixed
 * prefix lets secret scanners recognise a leaked key. Keys are shown once, at creation, and
 * stored only as HMAC-SHA-256 under a server-side pepper (HOOKSTREAM_API_KEY_PEPPERS).
 */
export const API_KEY_PREFIX = 'hsk_';
const API_KEY_PATTERN = /^hsk_[A-Za-z0-9_-]{43}$/;

export interface NewApiKey {
  /** The key itself: give it to the partner; it is never stored or shown again. */
  key: string;
  keyId: string;
  /** The first characters, enough for a person to tell keys apart, never enough to use one. */
  displayPrefix: string;
}

export function generateApiKey(): NewApiKey {
  const key = `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { key, keyId: `key_${randomBytes(6).toString('hex')}`, displayPrefix: `${key.slice(0, API_KEY_PREFIX.length + 6)}…` };
}

/** Whether a presented value has the shape of a Hookstream key (cheap pre-check, not auth). */
export function looksLikeApiKey(value: string): boolean {
  return API_KEY_PATTERN.test(value);
}

/** Keyed hashing of API keys; several peppers are accepted so the pepper can be rotated. */
export class ApiKeyHasher {
  /** Peppers as KeyObjects, made once: a Buffer key costs a KeyObject per HMAC (measured: ~6 % of the ingress's CPU). */
  private readonly peppers: Array<{ id: string; key: KeyObject }>;
  /** Presented key → its hashes, oldest first (a Map keeps insertion order). */
  private readonly recent = new Map<string, ReadonlyArray<{ hash: string; pepperId: string }>>();
  static readonly RECENT_KEYS = 10_000;

  constructor(peppers: DataKey[]) {
    if (peppers.length === 0) throw new Error('ApiKeyHasher needs at least one pepper');
    this.peppers = peppers.map((p) => ({ id: p.id, key: createSecretKey(p.key) }));
  }

  /** Hash of a new key under the current pepper. */
  hash(key: string): { hash: string; pepperId: string } {
    const pepper = this.peppers[0]!;
    return { hash: this.digest(key, pepper.key), pepperId: pepper.id };
  }

  /**
   * Hashes of a presented key under every known pepper, for lookup. A partner sends the same key
   * on every request, so the hashes of recently presented keys are kept (in memory only, for at
   * most RECENT_KEYS keys): the HMAC per request was 6.7 % of the ingress's CPU profile under load.
   * A flood of made-up keys only evicts: each still costs its HMACs, as before.
   */
  candidates(key: string): ReadonlyArray<{ hash: string; pepperId: string }> {
    const known = this.recent.get(key);
    if (known) return known;
    const hashes = this.peppers.map((p) => ({ hash: this.digest(key, p.key), pepperId: p.id }));
    if (this.recent.size >= ApiKeyHasher.RECENT_KEYS) this.recent.delete(this.recent.keys().next().value!);
    this.recent.set(key, hashes);
    return hashes;
  }

  /** Constant-time comparison of two hashes. */
  static same(a: string, b: string): boolean {
    const x = Buffer.from(a, 'base64url');
    const y = Buffer.from(b, 'base64url');
    return x.length === y.length && timingSafeEqual(x, y);
  }

  private digest(key: string, pepper: KeyObject): string {
    return createHmac('sha256', pepper).update(key, 'utf8').digest('base64url');
  }
}
