import { sql, type Kysely, type Migration } from 'kysely';

// At most one retry now in flight per delivery (retry-now-claims.ts): its claim, taken in one
// statement as the retry now is accepted, so that of concurrent presses one wins. It stands until
// the retry's outcome is in the log (an attempt of trigger RETRY_NOW numbered after
// attempts_before) or it expires (a retry lost on its way blocks no one for ever).
export const retryNowClaims: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      create table retry_now_claims (
        delivery_id text primary key,
        claim_id text not null,
        attempts_before integer not null,
        claimed_at timestamptz not null,
        expires_at timestamptz not null
      )`.execute(db);
    await sql`create index retry_now_claims_expires_at on retry_now_claims (expires_at)`.execute(db);
  },
};
