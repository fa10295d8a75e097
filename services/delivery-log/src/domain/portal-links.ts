/*
 * Portal links for a partner's people, given and taken back by an operator: a signed portal token
 * recorded in issued_credentials, each issue and each revocation audited without the token (who
 * gave whom access, until when). Revoking one already revoked or expired changes nothing and
 * writes no audit record.
 */
import { NotFoundError } from '@hookstream/errors';
import type { Actor, AuditedWriter } from '@hookstream/partners';
import type { IssuedCredentials, PortalLink } from '../adapters/store/issued-credentials';
import type { IssuedPortalToken, PortalTokens } from '../adapters/signing/portal-tokens';

export interface PortalLinkStores {
  portalTokens: PortalTokens;
  issuedCredentials: IssuedCredentials;
  audit: AuditedWriter;
}

export async function issuePortalLink(
  { portalTokens, audit }: PortalLinkStores,
  link: { partnerId: string; validSeconds: number; actor: Actor; reason: string },
): Promise<IssuedPortalToken> {
  const issued = await portalTokens.issue(link.partnerId, link.validSeconds, link.actor.id);
  await audit.write([], link.actor, {
    action: 'portal-token.issue',
    subject: { type: 'partner', id: link.partnerId },
    reason: link.reason,
    detail: { token_id: issued.id, expires_at: issued.expiresAt.toISOString() },
  });
  return issued;
}

/** The link as it is after the revocation. */
export async function revokePortalLink(
  { issuedCredentials, audit }: PortalLinkStores,
  revocation: { partnerId: string; tokenId: string | undefined; actor: Actor; reason: string },
): Promise<PortalLink | undefined> {
  const { partnerId, actor, reason } = revocation;
  const link = (await issuedCredentials.portalLinks(partnerId)).find((l) => l.token_id === revocation.tokenId);
  if (!link) throw new NotFoundError('portal token', 'no portal token with that id');
  if (await issuedCredentials.revoke(link.token_id, { actor: actor.id, reason })) {
    await audit.write([], actor, {
      action: 'portal-token.revoke',
      subject: { type: 'partner', id: partnerId },
      reason,
      detail: { token_id: link.token_id },
    });
  }
  return (await issuedCredentials.portalLinks(partnerId)).find((l) => l.token_id === link.token_id);
}
