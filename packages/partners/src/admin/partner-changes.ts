import { KafkaUnavailableError, NotFoundError, describeError } from '@hookstream/errors';
import { TRANSACTION_TIMEOUT_MS, type AuditedWriter } from './audited-writer';
import type { Actor } from './audit-entry';
import { TopicNames } from '@hookstream/kafka';
import type { NewApiKey } from '../api-keys';
import { PartnerChangeRefused, keptKeys, refusePartnerIssueBeyondDaily, refuseTooManyLiveKeys } from '../key-limits';
import { partnerToRecord, type Partner, type PartnerStatus } from '../model';
import {
  addApiKey,
  createPartner,
  revokeApiKey,
  rotateApiKey,
  setPartnerStatus,
  updatePartner,
  type PartnerAdminDeps,
} from '../partner-admin';
import type { PartnerDirectory } from '../partner-directory';
import { PartnerSpecError } from '../partner-spec-error';

/** How long a change waits to read itself back from partner-config, so that what follows it (the next request, the next command) sees it. */
const READ_BACK_MS = 5_000;
/**
 * How long a change waits to have read every earlier change of partner-config before it decides:
 * longer than a transaction may stay open, since a writer killed inside one holds read_committed
 * readers back until the broker aborts it.
 */
const CATCH_UP_MS = TRANSACTION_TIMEOUT_MS + 2_000;

/** What a change decided: the partner's next record, and what its audit says of it. */
interface Decision {
  next: Partner;
  action: string;
  detail?: Record<string, unknown>;
}

/**
 * Onboarding, for the CLI and the operator API alike (and a partner's own key rotation): each
 * change is validated by the pure use cases of partner-admin.ts, written with its audit record in
 * one transaction, and read back, so both front ends refuse, write and audit the same way.
 *
 * Each is a read-modify-write of one partner, made as its sole writer (AuditedWriter's
 * writeAsSoleWriter): two operators changing one partner on two replicas, or a replica and the
 * CLI, are applied one after the other, the second deciding on what the first wrote (a stale
 * revision answers a conflict), never one lost. Every write also drops the keys that no longer
 * work (key-limits.ts), so the record stays bounded whatever is done to it.
 */
export class PartnerChanges {
  constructor(
    private readonly directory: PartnerDirectory,
    private readonly writer: AuditedWriter,
    private readonly deps: () => PartnerAdminDeps,
  ) {}

  async create(spec: unknown, actor: Actor, reason: string, options: { keyExpiresAt?: number | null } = {}) {
    const { partner, apiKey } = createPartner(spec, this.deps(), options);
    const created = await this.change(partner.partner_id, actor, reason, (current) => {
      if (current) throw new PartnerSpecError([{ field: 'partner_id', message: `"${partner.partner_id}" exists already` }]);
      return { next: partner, action: 'partner.create', detail: { key_id: apiKey.keyId } };
    });
    return { partner: created, apiKey };
  }

  /** Applies `patch`; with `expectedRevision`, only to that revision of the partner (else a conflict, nothing written). */
  async update(
    partnerId: string,
    patch: Record<string, unknown>,
    actor: Actor,
    reason: string,
    expectedRevision?: number,
  ): Promise<Partner> {
    return this.change(partnerId, actor, reason, (current) => {
      const partner = required(current, partnerId);
      if (expectedRevision !== undefined && expectedRevision !== partner.revision) {
        throw new PartnerChangeRefused(
          'conflict',
          `the partner changed since revision ${expectedRevision} (it is at ${partner.revision}): read it again`,
        );
      }
      return { next: updatePartner(partner, patch, this.deps()), action: 'partner.update', detail: { fields: Object.keys(patch).sort() } };
    });
  }

  async setStatus(partnerId: string, status: PartnerStatus, actor: Actor, reason: string): Promise<Partner> {
    return this.change(partnerId, actor, reason, (current) => ({
      next: setPartnerStatus(required(current, partnerId), status, {}),
      action: status === 'ACTIVE' ? 'partner.enable' : 'partner.disable',
    }));
  }

  async addKey(partnerId: string, actor: Actor, reason: string, options: { expiresAt?: number | null } = {}) {
    let apiKey: NewApiKey | undefined;
    const partner = await this.change(partnerId, actor, reason, (current, now) => {
      const added = addApiKey(required(current, partnerId), this.depsAt(now), options);
      refuseTooManyLiveKeys(added.partner.api_keys, now);
      apiKey = added.apiKey;
      return { next: added.partner, action: 'partner.add-key', detail: { key_id: added.apiKey.keyId } };
    });
    return { partner, apiKey: apiKey! };
  }

  /** A new key, the others retiring after `overlapMs`; a partner rotating its own is held to KEY_LIMITS.partnerIssuesPerDay. */
  async rotateKey(
    partnerId: string,
    actor: Actor,
    reason: string,
    options: { overlapMs: number; expiresAt?: number | null },
  ): Promise<{ partner: Partner; apiKey: NewApiKey; retiring: Array<{ key_id: string; expires_at: number }> }> {
    let rotated: ReturnType<typeof rotateApiKey> | undefined;
    const partner = await this.change(partnerId, actor, reason, (current, now) => {
      const partner = required(current, partnerId);
      if (actor.type === 'partner') refusePartnerIssueBeyondDaily(partner.api_keys, now);
      rotated = rotateApiKey(partner, this.depsAt(now), options);
      refuseTooManyLiveKeys(rotated.partner.api_keys, now);
      const detail = { key_id: rotated.apiKey.keyId, retiring: rotated.retiring };
      return { next: rotated.partner, action: 'partner.rotate-key', detail };
    });
    return { ...rotated!, partner };
  }

  /** An operator turns the partner's self-service (its own endpoint and signing-secret changes) on or off. */
  async setSelfService(partnerId: string, enabled: boolean, actor: Actor, reason: string): Promise<Partner> {
    return this.change(partnerId, actor, reason, (current, now) => {
      const partner = required(current, partnerId);
      return {
        next: { ...partner, self_service: enabled, revision: partner.revision + 1, updated_at: now },
        action: enabled ? 'partner.self-service-on' : 'partner.self-service-off',
      };
    });
  }

  /**
   * A change the partner makes to itself through the partner API (its endpoints, its signing
   * secret), decided by `decide` on the partner as it is: refused (403) while an operator has turned
   * its self-service off. Returns the partner written and what `decide` answered beside it.
   */
  async selfService<T>(
    partnerId: string,
    actor: Actor,
    reason: string,
    decide: (current: Partner, deps: PartnerAdminDeps) => { next: Partner; action: string; detail: Record<string, unknown>; answer: T },
  ): Promise<{ partner: Partner; answer: T }> {
    let answer: T | undefined;
    const partner = await this.change(partnerId, actor, reason, (current, now) => {
      const partner = required(current, partnerId);
      if (partner.self_service === false) {
        throw new PartnerChangeRefused(
          'forbidden',
          'the insurer turned self-service off for this partner: ask an operator to change endpoints or the signing secret',
        );
      }
      const decided = decide(partner, this.depsAt(now));
      answer = decided.answer;
      return decided;
    });
    return { partner, answer: answer! };
  }

  async revokeKey(partnerId: string, keyId: string, actor: Actor, reason: string): Promise<Partner> {
    return this.change(partnerId, actor, reason, (current) => ({
      next: revokeApiKey(required(current, partnerId), keyId, {}),
      action: 'partner.revoke-key',
      detail: { key_id: keyId },
    }));
  }

  /** The use cases' dependencies with the change's one clock reading, so that what they expire is expired by the checks of the same change. */
  private depsAt(now: number): PartnerAdminDeps {
    return { ...this.deps(), now: () => now };
  }

  /** Decides on the partner as every earlier change left it, writes the decision as the partner's sole writer, and reads it back. */
  private async change(
    partnerId: string,
    actor: Actor,
    reason: string,
    decide: (current: Partner | undefined, now: number) => Decision,
  ): Promise<Partner> {
    let written: Partner | undefined;
    await this.writer.writeAsSoleWriter(`partner-${partnerId}`, async () => {
      await this.directory.caughtUp(CATCH_UP_MS).catch((error: unknown) => {
        throw new KafkaUnavailableError(`partner-config could not be read up to its end (${describeError(error)}): nothing written`, error);
      });
      const now = Date.now();
      const { next, action, detail } = decide(this.directory.get(partnerId), now);
      written = { ...next, api_keys: keptKeys(next.api_keys, now) };
      return {
        records: [{ topic: TopicNames.partnerConfig, key: partnerId, value: partnerToRecord(written) }],
        actor,
        change: { action, subject: { type: 'partner', id: partnerId }, reason, detail: { revision: written.revision, ...detail } },
      };
    });
    return (await this.directory.waitForRevision(partnerId, written!.revision, READ_BACK_MS)) ?? written!;
  }
}

function required(partner: Partner | undefined, partnerId: string): Partner {
  if (!partner) throw new NotFoundError('partner', `no partner "${partnerId}"`);
  return partner;
}
