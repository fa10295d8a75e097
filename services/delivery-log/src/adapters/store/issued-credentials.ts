/*
 * The console sessions and portal links the API signed, one row each by the JWT's id (jti) in the
 * store every replica shares: a signature proves who issued a credential, its row whether it still
 * holds. A request reads its row by primary key, with no cache (1.6 ms on PostgreSQL, round trip
 * included, on a shared 2-core machine: test/issued-credentials.int.test.ts),
 * so sign-out or a revocation holds on every replica from the next request. A signed-out session's
 * row goes at once, every other once expired (pruner.ts), and each holder has at most
 * CREDENTIAL_LIMITS live ones, so the table cannot grow without bound.
 */
import { ErrorCodes, Refusal } from '@hookstream/errors';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { DeliveryLogDb } from './tables';
import type { IssuedCredentialsTable } from './tables';

export const CREDENTIAL_LIMITS = {
  /** Live (unexpired, unrevoked) portal links per partner: an operator revokes one to issue the 51st. */
  portalLinksPerPartner: 50,
  /**
   * Live console sessions per holder: per operator, per partner's API key sign-ins, and per portal
   * link, so that whoever holds one link cannot use up the sessions of the partner's own people.
   * Sign-out (which deletes the row) or expiry (8 h) frees one.
   */
  sessionsPerHolder: 200,
  sessionsPerPortalLink: 20,
} as const;

export type CredentialKind = IssuedCredentialsTable['kind'];

export interface NewCredential {
  kind: CredentialKind;
  partnerId: string | null;
  operatorId: string | null;
  portalLinkId?: string | null;
  issuedAt: Date;
  expiresAt: Date;
}

export interface PortalLink {
  token_id: string;
  partner_id: string;
  issued_by: string | null;
  issued_at: string;
  expires_at: string;
  revoked_at: string | null;
  revoked_by: string | null;
  revoke_reason: string | null;
}

export class IssuedCredentials {
  constructor(private readonly db: DeliveryLogDb) {}

  /** Records a credential about to be signed and returns its id; refuses one past its holder's limit. */
  async record(credential: NewCredential): Promise<string> {
    const id = randomUUID();
    const { kind, issuedAt } = credential;
    const { limit, holder } = holderOf(credential);
    // Counted and inserted in one statement: requests racing on several replicas may pass it by as
    // many as race (read committed), which the limit, a bound on growth and not a quota, allows.
    const inserted = await sql`
      insert into issued_credentials (credential_id, kind, partner_id, operator_id, portal_link_id, issued_at, expires_at)
      select ${id}, ${kind}, ${credential.partnerId}, ${credential.operatorId}, ${credential.portalLinkId ?? null}, ${issuedAt}, ${credential.expiresAt}
      where (select count(*) from issued_credentials
             where ${holder} and kind = ${kind} and revoked_at is null and expires_at > ${issuedAt}) < ${limit}`.execute(this.db);
    if (Number(inserted.numAffectedRows ?? 0) === 1) return id;
    if (kind === 'portal_link')
      throw new Refusal(ErrorCodes.CONFLICT, `the partner has ${limit} live portal links: revoke one before issuing another`);
    throw new Refusal(ErrorCodes.TOO_MANY_REQUESTS, `${limit} console sessions are open: sign out of one, or retry later`, {
      retryAfterSeconds: 60,
    });
  }

  /**
   * Whether a credential still holds: recorded, not revoked, not expired, and (a partner's) issued
   * after the partner was last disabled. The last is read from the audit trail the store projects
   * from admin-audit, which every disable writes (`hookstream partners disable` too, which never
   * reaches this store): so a partner enabled again gets back nothing issued before, whichever way
   * it was disabled, across restarts. The API's own disable also revokes the rows at once, for the
   * moment the projection lags.
   */
  async holds(id: string | undefined, now = new Date()): Promise<boolean> {
    if (!id) return false;
    const row = await sql<{ ok: number }>`
      select 1 as ok from issued_credentials c
      where c.credential_id = ${id} and c.revoked_at is null and c.expires_at > ${now}
        and (c.partner_id is null or not exists (
          select 1 from audit_log a
          where a.subject_id = c.partner_id and a.subject_type = 'partner' and a.action = 'partner.disable' and a.at >= c.issued_at))`.execute(
      this.db,
    );
    return row.rows.length === 1;
  }

  /** A partner's portal links not yet pruned (expired ones stay until retention takes them), newest first. */
  async portalLinks(partnerId: string): Promise<PortalLink[]> {
    const rows = await this.db
      .selectFrom('issued_credentials')
      .selectAll()
      .where('partner_id', '=', partnerId)
      .where('kind', '=', 'portal_link')
      .orderBy('issued_at', 'desc')
      .execute();
    return rows.map((r) => ({
      token_id: r.credential_id,
      partner_id: partnerId,
      issued_by: r.operator_id,
      issued_at: r.issued_at.toISOString(),
      expires_at: r.expires_at.toISOString(),
      revoked_at: r.revoked_at?.toISOString() ?? null,
      revoked_by: r.revoked_by,
      revoke_reason: r.revoke_reason,
    }));
  }

  /** Signs a session out: its row goes at once (a session is never listed), so sign-in and sign-out in a loop grow nothing. */
  async end(sessionId: string): Promise<void> {
    await this.db.deleteFrom('issued_credentials').where('credential_id', '=', sessionId).where('kind', '=', 'console_session').execute();
  }

  /** Ends one credential, and the sessions opened with it (a portal link's); false when it was not live. */
  async revoke(id: string, by: { actor: string; reason: string }, now = new Date()): Promise<boolean> {
    const result = await this.db
      .updateTable('issued_credentials')
      .set({ revoked_at: now, revoked_by: by.actor, revoke_reason: by.reason })
      .where((eb) => eb.or([eb('credential_id', '=', id), eb('portal_link_id', '=', id)]))
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Ends every live session and portal link of a partner (it is being disabled); how many. */
  async revokeOfPartner(partnerId: string, by: { actor: string; reason: string }, now = new Date()): Promise<number> {
    const result = await this.db
      .updateTable('issued_credentials')
      .set({ revoked_at: now, revoked_by: by.actor, revoke_reason: by.reason })
      .where('partner_id', '=', partnerId)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}

/** Whose live credentials of this kind a new one is counted with, and how many that holder may have. */
function holderOf(credential: NewCredential) {
  if (credential.kind === 'portal_link') {
    return { limit: CREDENTIAL_LIMITS.portalLinksPerPartner, holder: sql`partner_id = ${credential.partnerId}` };
  }
  if (credential.partnerId === null) {
    return { limit: CREDENTIAL_LIMITS.sessionsPerHolder, holder: sql`partner_id is null and operator_id = ${credential.operatorId}` };
  }
  if (credential.portalLinkId) {
    return { limit: CREDENTIAL_LIMITS.sessionsPerPortalLink, holder: sql`portal_link_id = ${credential.portalLinkId}` };
  }
  return { limit: CREDENTIAL_LIMITS.sessionsPerHolder, holder: sql`partner_id = ${credential.partnerId} and portal_link_id is null` };
}
