import { sql, type Kysely, type Migration } from 'kysely';

/*
 * The request_id ledger's table in the PostgreSQL state store (DATABASE_URL), shared by every
 * ingress replica: one row per (partner, request_id) seen within IDEMPOTENCY_RETENTION_HOURS.
 * The primary key is the claim: the first insert of a key wins; the row then carries the answer.
 */

/** One row of ingress_request_ledger (times as the server's clock, so replicas' clocks never compare). */
export interface LedgerRow {
  partner_id: string;
  request_id: string;
  /** The current claim: replaced only by a takeover of an abandoned claim. */
  claim_id: string;
  /** Hex SHA-256 of the claimed payload's canonical JSON; after completion, the accepted payload's. */
  fingerprint: string;
  claimant_instance: string;
  claimed_at: Date;
  /**
   * From when partner-events has not been searched for an event of this key: the first claim's
   * time, moved on only once a takeover has searched and found none (so a takeover whose search
   * failed leaves the next one the whole span to search).
   */
  unchecked_since: Date;
  /** Set once the answer is known (the partner event is durable): the answer's fields. */
  completed_at: Date | null;
  transaction_number: string | null;
  transaction_type: 'POLICY' | 'CLAIM' | null;
  /** The row is deleted after this (IDEMPOTENCY_RETENTION_HOURS from the first claim). */
  expires_at: Date;
}

export interface LedgerTables {
  ingress_request_ledger: LedgerRow;
}

export const ledgerMigrations: Record<string, Migration> = {
  '0001-request-ledger': {
    async up(db: Kysely<unknown>) {
      // fillfactor 90: the completion updates every row once and changes no indexed column, so
      // room on the page lets it be a HOT update (no index write).
      await sql`
        create table ingress_request_ledger (
          partner_id text not null,
          request_id text not null,
          claim_id uuid not null,
          fingerprint text not null,
          claimant_instance text not null,
          claimed_at timestamptz not null,
          unchecked_since timestamptz not null,
          completed_at timestamptz,
          transaction_number text,
          transaction_type text check (transaction_type in ('POLICY', 'CLAIM')),
          expires_at timestamptz not null,
          primary key (partner_id, request_id)
        ) with (fillfactor = 90)`.execute(db);
      // The retention's delete takes the oldest rows first.
      await sql`create index ingress_request_ledger_expiry on ingress_request_ledger (expires_at)`.execute(db);
    },
  },
};
