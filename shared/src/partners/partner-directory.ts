import type { Kafka } from '../kafka/client';
import type { Logger } from 'pino';
import type { AvroCodec } from '../avro/registry-codec';
import { describeError } from '../errors';
import { TopicReader } from '../kafka/topic-reader';
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
 * truth, no database. Each process reads the whole topic (a TopicReader: no consumer
 * group, no committed offsets) from the beginning at start, is ready once it has read up to the end
 * offsets seen at start, and then applies changes as they arrive (within about a second).
 *
 * Memory: one Partner object per partner (about 1-3 KB with a few keys and endpoints) plus one
 * index entry per API key: O(partners × (keys + endpoints)); 10,000 partners ≈ 20-30 MB.
 */
export class PartnerDirectory {
  private readonly partners = new Map<string, Partner>();
  /** API key hash → where it belongs; rebuilt per partner on every change. */
  private readonly keyIndex = new Map<string, { partnerId: string; keyId: string }>();
  private readonly listeners = new Set<(partner: Partner | undefined, partnerId: string) => void>();
  private reader: TopicReader | undefined;
  private loaded = false;
  private readonly readyWaiters: Array<() => void> = [];
  private readonly logger: Logger;

  constructor(private readonly options: PartnerDirectoryOptions) {
    this.logger = options.logger.child({ module: 'partner-directory' });
  }

  /** True once the topic has been read up to where it ended at start. */
  get ready(): boolean {
    return this.loaded;
  }

  get(partnerId: string): Partner | undefined {
    return this.partners.get(partnerId);
  }

  /** Resolves once the topic has been read up to where it ended at start. */
  whenReady(): Promise<void> {
    if (this.loaded) return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  /** The partner once known, or undefined if it is not known within `timeoutMs` (e.g. an event racing the partner's onboarding). */
  waitFor(partnerId: string, timeoutMs: number): Promise<Partner | undefined> {
    const known = this.partners.get(partnerId);
    if (known || timeoutMs <= 0) return Promise.resolve(known);
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        unsubscribe();
        resolve(this.partners.get(partnerId));
      };
      const timer = setTimeout(finish, timeoutMs);
      const unsubscribe = this.onChange((partner, id) => {
        if (id === partnerId && partner) finish();
      });
    });
  }

  list(): Partner[] {
    return [...this.partners.values()].sort((a, b) => a.partner_id.localeCompare(b.partner_id));
  }

  /** Called after each applied change (undefined partner: deleted). */
  onChange(listener: (partner: Partner | undefined, partnerId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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
      const partner = this.partners.get(entry.partnerId);
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
    const { kafka, topic } = this.options;
    this.reader = new TopicReader({
      kafka,
      logger: this.logger,
      topic,
      maxWaitMs: 500,
      apply: async (messages) => {
        for (const message of messages) await this.apply(message.key?.toString('utf8') ?? '', message.value, message.offset);
      },
    });
    await this.reader.start();
    this.loaded = true;
    for (const wake of this.readyWaiters.splice(0)) wake();
    this.logger.info({ partners: this.partners.size }, 'partner-config loaded');
  }

  async stop(): Promise<void> {
    await this.reader?.stop();
  }

  private async apply(partnerId: string, value: Buffer | null, offset: string): Promise<void> {
    if (!partnerId) {
      this.logger.error({ offset }, 'partner-config record without a key: skipped');
      return;
    }
    let partner: Partner | undefined;
    if (value !== null) {
      try {
        partner = partnerFromRecord((await this.options.codec.decode(value, this.options.topic)) as Record<string, unknown>);
      } catch (error) {
        // Keep the last good version rather than stopping every service on one bad record.
        this.logger.error({ partnerId, offset, err: describeError(error) }, 'undecodable partner-config record: kept the previous version');
        return;
      }
    }
    const previous = this.partners.get(partnerId);
    for (const key of previous?.api_keys ?? []) this.keyIndex.delete(key.key_hash);
    if (partner) {
      this.partners.set(partnerId, partner);
      for (const key of partner.api_keys) this.keyIndex.set(key.key_hash, { partnerId, keyId: key.key_id });
    } else {
      this.partners.delete(partnerId);
    }
    if (this.loaded) this.logger.info({ partnerId, revision: partner?.revision ?? null, deleted: !partner }, 'partner-config changed');
    for (const listener of this.listeners) listener(partner, partnerId);
  }
}
