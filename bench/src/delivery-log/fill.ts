/**
 * Fills the delivery log's tables the way the projection leaves them, straight in SQL (the bench
 * measures reading, not writing a million records through Kafka): `deliveries` over PARTNERS
 * partners (or `partners`: 1 gives the bench partner them all), each with three attempts, a tenth
 * dead-lettered, a tenth failing, the rest delivered (of every partner's too). `first` numbers the
 * first delivery (d-<first>), so that a second call fills other rows (another partner's).
 */
import type { Client } from 'pg';

export const PARTNERS = 100;

export async function fillDeliveryLog(db: Client, deliveries: number, benchPartner: string, partners = PARTNERS, first = 1): Promise<void> {
  // Partner 0 is the onboarded bench partner, the others are ids only.
  const partner = `case when i % ${partners} = 0 then '${benchPartner}' else 'partner-' || (i % ${partners}) end`;
  // States by i / partners (with 100 partners, the tens digit), so that every partner has each of them.
  const kind = `((i / ${partners}) % 10)`;
  const state = `case when ${kind} = 3 then 'dead_lettered' when ${kind} = 7 then 'failing' else 'delivered' end`;
  await db.query(`
    insert into deliveries (delivery_id, partner_id, endpoint_id, event_id, policy_number, policy_version, policy_status, body,
      created_at, state, attempt_count, last_attempt_at, last_http_status, last_error_class, dead_lettered_at, replay_count)
    select 'd-' || i, ${partner}, 'main', 'e-' || i, 'POL-' || (i % 200000), 1, 'POLICY_ACTIVE',
      '{"policy_number":"POL-' || (i % 200000) || '","status":"POLICY_ACTIVE","padding":"' || repeat('x', 600) || '"}',
      now() - (i || ' seconds')::interval, ${state}, 3, now() - (i || ' seconds')::interval + interval '2 seconds',
      case when ${kind} in (3, 7) then 500 else 200 end, case when ${kind} in (3, 7) then 'HTTP_STATUS' end,
      case when ${kind} = 3 then now() - (i || ' seconds')::interval + interval '3 seconds' end, 0
    from generate_series(${first}, ${first + deliveries - 1}) i`);
  await db.query(`
    insert into delivery_attempts (source_partition, source_offset, delivery_id, attempt, outcome, http_status, error_class,
      latency_ms, tier, response_excerpt, recorded_at)
    -- Partitions 100 to 105: no record of the real topic can have these positions (the keep-up phase writes there).
    select 100 + i % 6, i, 'd-' || (i / 3 + 1), i % 3 + 1,
      case when i % 3 = 2 and ((i / 3 + 1) / ${partners}) % 10 not in (3, 7) then 'DELIVERED' else 'FAILED_ATTEMPT' end,
      case when i % 3 = 2 and ((i / 3 + 1) / ${partners}) % 10 not in (3, 7) then 200 else 500 end, null, 12.5, i % 3, null,
      now() - ((i / 3 + 1) || ' seconds')::interval + ((i % 3) || ' seconds')::interval
    from generate_series(${(first - 1) * 3}, ${(first - 1 + deliveries) * 3 - 1}) i`);
  await db.query('analyze');
}
