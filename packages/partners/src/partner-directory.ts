import type { Kafka } from '@hookstream/kafka';
import type { Logger } from 'pino';
import type { AvroCodec } from '@hookstream/kafka';
import { CompactedView } from '@hookstream/kafka';
import { ApiKeyHasher, looksLikeApiKey } from './api-keys';
import { partnerFromRecord, type InboundApiKey, type Partner } from './model';

export type ApiKeyCheck =
  | { ok: true; partner: Partner; key: InboundApiKey }
  | { ok: false; reason: 'missing' | 'malformed' | 'unknown' | 'revoked' | 'expired' | 'partner_disabled'; partnerId?: string };

export interface PartnerDirectoryOptions {
  kafka: Kafka;
  codec: AvroCodec;
  /** Real name of the partner-config topic. */
  topic: string;
  logger: Logger;
  /** Needed only to authenticate inbound API keys (the ingress). */
  hasher?: ApiKeyHasher;
}

/**
 * Every partner, materialised from the compacted `partner-config` topic: the single source of
 * truth, no database. Each process reads the whole topic (a CompactedView: no consumer group, no
 * committed offsets) from the beginning at start, is ready once it has read up to the end offsets
 * seen at start, and then applies changes as they arrive (within about a second).
 *
 * Memory: one Partner object per partner (about 1-3 KB with a few keys and endpoints) plus one
 * index entry per API key: O(partners × (keys + endpoints)); 10,000 partners ≈ 20-30 MB.
 */
export class PartnerDirectory {
  private readonly view: CompactedView<Partner>;
  /** API key hash → where it belongs; rebuilt per partner on every change. */
  private readonly keyIndex = new Map<string, { partnerId: string; keyId: string }>();
  /** Partner id → the hashes it has in keyIndex, to drop them when it changes. */
  private readonly indexedHashes = new Map<string, string[]>();
  private readonly logger: Logger;

  constructor(private readonly options: PartnerDirectoryOptions) {
    this.logger = options.logger.child({ module: 'partner-directory' });
    this.view = new CompactedView({ ...options, parse: partnerFromRecord });
    // Registered first, so the index is current before any other listener hears of the change.
    this.view.onChange((partner, partnerId) => {
      for (const hash of this.indexedHashes.get(partnerId) ?? []) this.keyIndex.delete(hash);
      this.indexedHashes.delete(partnerId);
      if (partner) {
        for (const key of partner.api_keys) this.keyIndex.set(key.key_hash, { partnerId, keyId: key.key_id });
        this.indexedHashes.set(
          partnerId,
          partner.api_keys.map((k) => k.key_hash),
        );
      }
      if (this.view.ready)
        this.logger.info({ partnerId, revision: partner?.revision ?? null, deleted: !partner }, 'partner-config changed');
    });
  }

  /** True once the topic has been read up to where it ended at start. */
  get ready(): boolean {
    return this.view.ready;
  }

  get(partnerId: string): Partner | undefined {
    return this.view.get(partnerId);
  }

  /** Resolves once the topic has been read up to where it ended at start. */
  whenReady(): Promise<void> {
    return this.view.whenReady();
  }

  /** The partner once known, or undefined if it is not known within `timeoutMs` (e.g. an event racing the partner's onboarding). */
  waitFor(partnerId: string, timeoutMs: number): Promise<Partner | undefined> {
    return this.view.waitFor(partnerId, () => true, timeoutMs);
  }

  /** The partner once this process has read revision `revision` or a later one (reading one's own write), else undefined after `timeoutMs`. */
  waitForRevision(partnerId: string, revision: number, timeoutMs: number): Promise<Partner | undefined> {
    return this.view.waitFor(partnerId, (p) => p.revision >= revision, timeoutMs);
  }

  /** Resolves once every change written to partner-config before this call is read here; rejects after `timeoutMs`. */
  caughtUp(timeoutMs: number): Promise<void> {
    return this.view.caughtUp(timeoutMs);
  }

  list(): Partner[] {
    return this.view.all().sort((a, b) => a.partner_id.localeCompare(b.partner_id));
  }

  /** Called after each applied change (undefined partner: deleted). */
  onChange(listener: (partner: Partner | undefined, partnerId: string) => void): () => void {
    return this.view.onChange(listener);
  }

  /**
   * Which partner a presented x-api-key belongs to, and whether it may be used now. The key is
   * looked up by its keyed hash (knowing the stored hashes does not help an attacker without the
   * pepper) and the stored hash is compared in constant time.
   */
  checkApiKey(presented: string | undefined, now = Date.now()): ApiKeyCheck {
    if (!presented) return { ok: false, reason: 'missing' };
    if (!looksLikeApiKey(presented)) return { ok: false, reason: 'malformed' };
    const hasher = this.options.hasher;
    if (!hasher) throw new Error('this PartnerDirectory was built without an ApiKeyHasher');
    for (const candidate of hasher.candidates(presented)) {
      const entry = this.keyIndex.get(candidate.hash);
      if (!entry) continue;
      const partner = this.view.get(entry.partnerId);
      const key = partner?.api_keys.find((k) => k.key_id === entry.keyId && k.hash_key_id === candidate.pepperId);
      if (!partner || !key || !ApiKeyHasher.same(key.key_hash, candidate.hash)) continue;
      if (key.revoked_at !== null && key.revoked_at <= now) return { ok: false, reason: 'revoked', partnerId: partner.partner_id };
      if (key.expires_at !== null && key.expires_at <= now) return { ok: false, reason: 'expired', partnerId: partner.partner_id };
      if (partner.status !== 'ACTIVE') return { ok: false, reason: 'partner_disabled', partnerId: partner.partner_id };
      return { ok: true, partner, key };
    }
    return { ok: false, reason: 'unknown' };
  }

  /** Reads the topic to its end; resolves once loaded, then keeps applying changes until `stop()`. */
  async start(): Promise<void> {
    await this.view.start();
    this.logger.info({ partners: this.view.all().length }, 'partner-config loaded');
  }

  async stop(): Promise<void> {
    await this.view.stop();
  }
}
