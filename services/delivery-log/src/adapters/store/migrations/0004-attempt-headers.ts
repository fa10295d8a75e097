import { sql, type Kysely, type Migration } from 'kysely';

// How a partner can check its callbacks: the headers each send carried (secret-bearing values are
// "[redacted]" by the sender before they reach a topic), and the public part of the partner's
// outbound auth (header names, the MD5 contract, the JWT's algorithm and issuer; never a secret or
// its ciphertext). Null in rows projected before this, and for outcomes that made no request.
export const attemptHeaders: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`alter table delivery_attempts add column request_headers jsonb`.execute(db);
    await sql`alter table partners add column outbound_auth_public jsonb`.execute(db);
  },
};
