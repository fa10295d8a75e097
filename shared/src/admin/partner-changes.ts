import { NotFoundError } from './not-found';
import type { AuditedWriter } from './audited-writer';
import type { Actor } from './audit-entry';
import { TopicNames } from '../kafka/topics';
import type { NewApiKey } from '../partners/api-keys';
import { partnerToRecord, type Partner, type PartnerStatus } from '../partners/model';
import {
  addApiKey,
  createPartner,
  revokeApiKey,
  rotateApiKey,
  setPartnerStatus,
  updatePartner,
  type PartnerAdminDeps,
} from '../partners/partner-admin';
import type { PartnerDirectory } from '../partners/partner-directory';
import { PartnerSpecError } from '../partners/partner-spec-error';

/** How long a change waits to read itself back from partner-config, so that what follows it (the next request, the next command) sees it. */
const READ_BACK_MS = 5_000;

/**
 * Onboarding, for the CLI and the operator API alike (and a partner's own key rotation): each
 * change is validated by the pure use cases of partner-admin.ts, written with its audit record in
 * one transaction, and read back, so both front ends refuse, write and audit the same way.
 */
export class PartnerChanges {
  constructor(
    private readonly directory: PartnerDirectory,
    private readonly writer: AuditedWriter,
    private readonly deps: () => PartnerAdminDeps,
  ) {}

  async create(spec: unknown, actor: Actor, reason: string, options: { keyExpiresAt?: number | null } = {}) {
    const { partner, apiKey } = createPartner(spec, this.deps(), options);
    if (this.directory.get(partner.partner_id)) {
      throw new PartnerSpecError([{ field: 'partner_id', message: `"${partner.partner_id}" exists already` }]);
    }
    return { partner: await this.write(partner, actor, 'partner.create', reason, { key_id: apiKey.keyId }), apiKey };
  }

  async update(partnerId: string, patch: Record<string, unknown>, actor: Actor, reason: string): Promise<Partner> {
    const next = updatePartner(this.current(partnerId), patch, this.deps());
    return this.write(next, actor, 'partner.update', reason, { fields: Object.keys(patch).sort() });
  }

  async setStatus(partnerId: string, status: PartnerStatus, actor: Actor, reason: string): Promise<Partner> {
    const next = setPartnerStatus(this.current(partnerId), status, {});
    return this.write(next, actor, status === 'ACTIVE' ? 'partner.enable' : 'partner.disable', reason);
  }

  async addKey(partnerId: string, actor: Actor, reason: string, options: { expiresAt?: number | null } = {}) {
    const { partner, apiKey } = addApiKey(this.current(partnerId), this.deps(), options);
    return { partner: await this.write(partner, actor, 'partner.add-key', reason, { key_id: apiKey.keyId }), apiKey };
  }

  async rotateKey(
    partnerId: string,
    actor: Actor,
    reason: string,
    options: { overlapMs: number; expiresAt?: number | null },
  ): Promise<{ partner: Partner; apiKey: NewApiKey; retiring: Array<{ key_id: string; expires_at: number }> }> {
    const rotated = rotateApiKey(this.current(partnerId), this.deps(), options);
    const detail = { key_id: rotated.apiKey.keyId, retiring: rotated.retiring };
    return { ...rotated, partner: await this.write(rotated.partner, actor, 'partner.rotate-key', reason, detail) };
  }

  async revokeKey(partnerId: string, keyId: string, actor: Actor, reason: string): Promise<Partner> {
    const next = revokeApiKey(this.current(partnerId), keyId, {});
    return this.write(next, actor, 'partner.revoke-key', reason, { key_id: keyId });
  }

  /** The partner as this process reads it now; NotFoundError when there is none. */
  current(partnerId: string): Partner {
    const partner = this.directory.get(partnerId);
    if (!partner) throw new NotFoundError('partner', partnerId);
    return partner;
  }

  private async write(partner: Partner, actor: Actor, action: string, reason: string, detail: Record<string, unknown> = {}) {
    await this.writer.write([{ topic: TopicNames.partnerConfig, key: partner.partner_id, value: partnerToRecord(partner) }], actor, {
      action,
      subject: { type: 'partner', id: partner.partner_id },
      reason,
      detail: { revision: partner.revision, ...detail },
    });
    return (await this.directory.waitForRevision(partner.partner_id, partner.revision, READ_BACK_MS)) ?? partner;
  }
}
