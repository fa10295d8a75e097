/*
 * The callback-sender's table in the state store (@hookstream/runtime's openStateStore, migration history
 * `callback_sender_migration`): the newest policy version read from callback-requests per
 * (partner, endpoint, policy), and when a version of it was last read. Every sender replica reads
 * and writes the same rows, so all judge latest-wins alike whatever partitions they own.
 */
import { sql, type Kysely, type Migration } from 'kysely';

export interface LatestPolicyVersionTable {
  partner_id: string;
  endpoint_id: string;
  policy_number: string;
  /** The newest version read (policy_version, a long). */
  version: number;
  /** When a version of this (endpoint, policy) was last read, epoch ms (retention: LatestVersions.sweep). */
  seen_at: number;
}

/** A delivery a retry now or a tier's record delivered (delivered-callbacks.ts): neither sends it again. */
export interface RetryNowDeliveryTable {
  delivery_id: string;
  /** When the retry now was delivered, epoch ms (kept for the same window as the versions). */
  delivered_at: number;
}

export interface VersionTables {
  latest_policy_version: LatestPolicyVersionTable;
  retry_now_delivery: RetryNowDeliveryTable;
}

export const versionMigrations: Record<string, Migration> = {
  '001_latest_policy_version': {
    up: async (db: Kysely<unknown>) => {
      await sql`
        create table latest_policy_version (
          partner_id text not null,
          endpoint_id text not null,
          policy_number text not null,
          version bigint not null,
          seen_at bigint not null,
          primary key (partner_id, endpoint_id, policy_number)
        )`.execute(db);
      // The retention sweep deletes the oldest rows in bounded batches: without it each batch would scan the table.
      await sql`create index latest_policy_version_seen_at on latest_policy_version (seen_at)`.execute(db);
    },
  },
  '002_retry_now_delivery': {
    up: async (db: Kysely<unknown>) => {
      await sql`
        create table retry_now_delivery (
          delivery_id text primary key,
          delivered_at bigint not null
        )`.execute(db);
      await sql`create index retry_now_delivery_delivered_at on retry_now_delivery (delivered_at)`.execute(db);
    },
  },
};
