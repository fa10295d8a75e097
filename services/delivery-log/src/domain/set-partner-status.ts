/*
 * An operator disables or enables a partner (PartnerChanges.setStatus: validated and audited as
 * `hookstream partners` does). Disabling also revokes the partner's console sessions and portal
 * links at once, on every replica: the audit trail's partner.disable refuses them too, but only
 * once projected.
 */
import type { Actor, Partner, PartnerChanges } from '@hookstream/partners';
import type { IssuedCredentials } from '../adapters/store/issued-credentials';

export async function setPartnerStatus(
  changes: PartnerChanges,
  issuedCredentials: IssuedCredentials,
  change: { partnerId: string; status: 'ACTIVE' | 'DISABLED'; actor: Actor; reason: string },
): Promise<Partner> {
  const partner = await changes.setStatus(change.partnerId, change.status, change.actor, change.reason);
  if (change.status === 'DISABLED') {
    await issuedCredentials.revokeOfPartner(change.partnerId, { actor: change.actor.id, reason: change.reason });
  }
  return partner;
}
