/*
 * Fills a service's state store with N entries straight into its tables, as N request_ids, N
 * policies' versions or N recorded documents of history would have left them (one statement,
 * generate_series, so a million rows take seconds rather than a day of traffic).
 */
import { Client } from 'pg';
import { stateSchemaOf } from '@hookstream/runtime';

export const STATEFUL_SERVICES = ['ingress', 'callback-sender', 'document-fetcher'] as const;
export type StatefulService = (typeof STATEFUL_SERVICES)[number];

/** What each service's history leaves in its table (the service has created the table at its first start). */
const FILLS: Record<StatefulService, (keys: number, partnerId: string, topicPrefix: string) => { text: string; values: unknown[] }> = {
  ingress: (keys, partnerId) => ({
    text: `insert into ingress_request_ledger
             (partner_id, request_id, claim_id, fingerprint, claimant_instance, claimed_at, unchecked_since,
              completed_at, transaction_number, transaction_type, expires_at)
           select $1, 'history-' || n, gen_random_uuid(), md5(n::text), 'bench', now(), now(),
                  now(), 'TRX-' || (n % 100000), 'POLICY', now() + interval '1 day'
           from generate_series(1, $2) as n`,
    values: [partnerId, keys],
  }),
  'callback-sender': (keys, partnerId) => ({
    text: `insert into latest_policy_version (partner_id, endpoint_id, policy_number, version, seen_at)
           select $1, 'primary', 'POL-' || n, 1, (extract(epoch from now()) * 1000)::bigint
           from generate_series(1, $2) as n`,
    values: [partnerId, keys],
  }),
  'document-fetcher': (keys, _partnerId, topicPrefix) => ({
    text: `insert into recorded_documents (topic, document_id, replay, seen_at)
           select $1, gen_random_uuid()::text, 0, (extract(epoch from now()) * 1000)::bigint
           from generate_series(1, $2) as n`,
    values: [`${topicPrefix}partner-documents`, keys],
  }),
};

/** Writes `keys` entries of history into `service`'s tables at `databaseUrl`; then ANALYZE, as autovacuum would soon. */
export async function fillState(
  service: StatefulService,
  databaseUrl: string,
  keys: number,
  partnerId: string,
  topicPrefix: string,
): Promise<void> {
  // The services keep a namespace's state in its own schema (TOPIC_PREFIX): fill that one.
  const client = new Client({ connectionString: databaseUrl, options: `-c search_path=${stateSchemaOf(topicPrefix)}` });
  await client.connect();
  try {
    await client.query(FILLS[service](keys, partnerId, topicPrefix));
    await client.query('analyze');
  } finally {
    await client.end();
  }
}
