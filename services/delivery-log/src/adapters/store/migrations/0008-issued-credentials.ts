import { sql, type Kysely, type Migration } from 'kysely';

// Every console session and portal link the API signs, by its id (the JWT's jti), so that one can
// be ended before it expires on every replica at once (sign-out, an operator's revocation, the
// partner disabled): each request reads its row. The API's own state, not a projection of the
// topics; pruned once expired.
export const issuedCredentials: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      create table issued_credentials (
        credential_id text primary key,
        kind text not null,
        partner_id text,
        operator_id text,
        portal_link_id text,
        issued_at timestamptz not null,
        expires_at timestamptz not null,
        revoked_at timestamptz,
        revoked_by text,
        revoke_reason text
      )`.execute(db);
    // A partner's (or an operator's) live ones: counted against the limits, listed, revoked together.
    await sql`create index issued_credentials_partner on issued_credentials (partner_id, kind, expires_at)`.execute(db);
    await sql`create index issued_credentials_operator on issued_credentials (operator_id, kind, expires_at)`.execute(db);
    await sql`create index issued_credentials_link on issued_credentials (portal_link_id) where portal_link_id is not null`.execute(db);
    await sql`create index issued_credentials_expiry on issued_credentials (expires_at)`.execute(db);
  },
};
