/*
 * The endpoints failing across partners, for an operator: each partner endpoint with a failed send
 * in the last day, or deliveries still dead-lettered, or its partner's circuit open, with what an
 * operator needs to decide which to look at first. Worst first: its partner's circuit open (nothing
 * is sent at all), then the lowest success rate over the last hour (an endpoint without a send in it
 * after those with one), then the most dead letters waiting, then failed sends in the last hour and
 * day. Not by failed sends first: an endpoint failing 60 % of many sends outranked one refusing
 * every connection with its circuit open (issue 46).
 *
 * Cost: one pass over the last day's attempts through their time index (delivery_attempts_time),
 * counted in one hash aggregate; the deliveries still dead-lettered through a partial index
 * (deliveries_dead_lettered, a small part of the table); then an index lookup per endpoint for its
 * partner's circuit (the newest record, through delivery_attempts_partner_time) and one per
 * endpoint of the page for its last send. No sort of the day's attempts.
 */
import { sql } from 'kysely';
import type { DeliveryLogDb } from '../tables';

const HOUR_MS = 3600_000;
/** Outcomes of an actual send (endpoint-health.ts's SENDS). */
const SENDS = ['DELIVERED', 'FAILED_ATTEMPT'];
/** The records the circuit is judged by (endpoint-health.ts): the sends, dead-letterings and circuit-open skips. */
export const RECORDED = [...SENDS, 'DEAD_LETTERED', 'SKIPPED_CIRCUIT_OPEN'];

export interface FailingEndpoint {
  partner_id: string;
  partner_name: string | null;
  endpoint_id: string;
  /** What the partner calls the endpoint (null: no name, or since removed). */
  endpoint_name: string | null;
  url: string | null;
  /** Sends in the last hour, those answered 200, and their share (null without sends). */
  sends_last_hour: number;
  delivered_last_hour: number;
  success_rate_last_hour: number | null;
  failed_last_hour: number;
  failed_last_day: number;
  /** The last send's answer (null when it got none: a timeout, a refused connection …) and error class. */
  last_http_status: number | null;
  last_error_class: string | null;
  last_attempt_at: Date | null;
  /** The partner's circuit as endpoint health defines it (endpoint-health.ts). */
  circuit_state: 'open' | 'closed' | 'unknown';
  /** Its deliveries dead-lettered and not resent or replayed since. */
  dead_letters_waiting: number;
  oldest_dead_letter_at: Date | null;
}

export interface FailingEndpointsPage {
  items: FailingEndpoint[];
  /** How many endpoints are failing in all (the items are `limit` of them from `offset`). */
  total: number;
}

interface Row {
  partner_id: string;
  endpoint_id: string;
  partner_name: string | null;
  endpoints: Array<{ endpoint_id: string; name?: string | null; url: string }> | null;
  hour_sends: string;
  hour_delivered: string;
  hour_failed: string;
  day_failed: string;
  last_http_status: number | null;
  last_error_class: string | null;
  last_attempt_at: Date | null;
  circuit_outcome: string | null;
  circuit_error_class: string | null;
  waiting: string;
  oldest_waiting: Date | null;
  total: string;
}

export async function failingEndpoints(
  db: DeliveryLogDb,
  page: { limit: number; offset: number; partnerId?: string },
  now = new Date(),
): Promise<FailingEndpointsPage> {
  const dayAgo = new Date(now.getTime() - 24 * HOUR_MS);
  const hourAgo = new Date(now.getTime() - HOUR_MS);
  const partner = page.partnerId === undefined ? sql`true` : sql`partner_id = ${page.partnerId}`;
  const sends = sql.join(SENDS.map((o) => sql.lit(o)));
  const recorded = sql.join(RECORDED.map((o) => sql.lit(o)));
  const { rows } = await sql<Row>`
    with sends as (
      select partner_id, endpoint_id,
        count(*) filter (where recorded_at >= ${hourAgo} and outcome in (${sends})) as hour_sends,
        count(*) filter (where recorded_at >= ${hourAgo} and outcome = 'DELIVERED') as hour_delivered,
        count(*) filter (where recorded_at >= ${hourAgo} and outcome = 'FAILED_ATTEMPT') as hour_failed,
        count(*) filter (where outcome = 'FAILED_ATTEMPT') as day_failed
      from delivery_attempts
      where recorded_at >= ${dayAgo} and recorded_at <= ${now} and partner_id is not null and endpoint_id is not null and ${partner}
        and outcome in (${recorded})
      group by partner_id, endpoint_id
    ),
    waiting as (
      select partner_id, endpoint_id, count(*) as waiting, min(dead_lettered_at) as oldest_waiting
      from deliveries where state = 'dead_lettered' and ${partner}
      group by partner_id, endpoint_id
    ),
    failing as (
      select coalesce(s.partner_id, w.partner_id) as partner_id, coalesce(s.endpoint_id, w.endpoint_id) as endpoint_id,
        coalesce(s.hour_sends, 0) as hour_sends, coalesce(s.hour_delivered, 0) as hour_delivered,
        coalesce(s.hour_failed, 0) as hour_failed, coalesce(s.day_failed, 0) as day_failed,
        coalesce(w.waiting, 0) as waiting, w.oldest_waiting
      from sends s full join waiting w on w.partner_id = s.partner_id and w.endpoint_id = s.endpoint_id
    ),
    ranked as (
      select f.*, c.outcome as circuit_outcome, c.error_class as circuit_error_class, count(*) over () as total
      from failing f
      -- The partner's newest record of the day, backwards through its (partner_id, recorded_at) index.
      left join lateral (
        select a.outcome, a.error_class from delivery_attempts a
        where a.partner_id = f.partner_id and a.recorded_at >= ${dayAgo} and a.recorded_at <= ${now} and a.outcome in (${recorded})
        order by a.recorded_at desc limit 1
      ) c on true
      where f.waiting > 0 or f.day_failed > 0 or ${circuitOpen(sql.ref('c.outcome'), sql.ref('c.error_class'))}
      order by ${worstFirst('f', sql.ref('c.outcome'), sql.ref('c.error_class'))}
      limit ${page.limit} offset ${page.offset}
    )
    -- The last send of each endpoint of the page only.
    select r.*, p.name as partner_name, p.endpoints,
      l.http_status as last_http_status, l.error_class as last_error_class, l.recorded_at as last_attempt_at
    from ranked r
    left join lateral (
      select a.http_status, a.error_class, a.recorded_at from delivery_attempts a
      where a.partner_id = r.partner_id and a.endpoint_id = r.endpoint_id and a.recorded_at >= ${dayAgo} and a.recorded_at <= ${now}
        and a.outcome in (${sends})
      order by a.recorded_at desc limit 1
    ) l on true
    left join partners p on p.partner_id = r.partner_id
    order by ${worstFirst('r', sql.ref('r.circuit_outcome'), sql.ref('r.circuit_error_class'))}`.execute(db);
  return {
    total: Number(rows[0]?.total ?? 0),
    items: rows.map((row) => {
      const endpoint = row.endpoints?.find((e) => e.endpoint_id === row.endpoint_id);
      const sends = Number(row.hour_sends);
      const delivered = Number(row.hour_delivered);
      return {
        partner_id: row.partner_id,
        partner_name: row.partner_name,
        endpoint_id: row.endpoint_id,
        endpoint_name: endpoint?.name ?? null,
        url: endpoint?.url ?? null,
        sends_last_hour: sends,
        delivered_last_hour: delivered,
        success_rate_last_hour: sends > 0 ? delivered / sends : null,
        failed_last_hour: Number(row.hour_failed),
        failed_last_day: Number(row.day_failed),
        last_http_status: row.last_http_status,
        last_error_class: row.last_error_class,
        last_attempt_at: row.last_attempt_at,
        circuit_state:
          row.circuit_outcome === null
            ? 'unknown'
            : row.circuit_outcome === 'SKIPPED_CIRCUIT_OPEN' ||
                (row.circuit_outcome === 'DEAD_LETTERED' && row.circuit_error_class === 'CIRCUIT_OPEN')
              ? 'open'
              : 'closed',
        dead_letters_waiting: Number(row.waiting),
        oldest_dead_letter_at: row.oldest_waiting,
      };
    }),
  };
}

/**
 * The SQL of endpoint-health.ts's circuitOpenBy: the partner's latest record skipped for, or dead-lettered by, its open circuit.
 * Also the notifications' judgement of an open circuit (notification-observations.ts).
 */
export function circuitOpen(outcome: ReturnType<typeof sql.ref>, errorClass: ReturnType<typeof sql.ref>) {
  return sql<boolean>`(${outcome} = 'SKIPPED_CIRCUIT_OPEN' or (${outcome} = 'DEAD_LETTERED' and ${errorClass} = 'CIRCUIT_OPEN'))`;
}

/** The order of the page (see the header), over the failing row `alias` and its partner's newest record. */
function worstFirst(alias: 'f' | 'r', outcome: ReturnType<typeof sql.ref>, errorClass: ReturnType<typeof sql.ref>) {
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  return sql`coalesce(${circuitOpen(outcome, errorClass)}, false) desc,
    ${column('hour_delivered')}::float8 / nullif(${column('hour_sends')}, 0) asc nulls last,
    ${column('waiting')} desc, ${column('hour_failed')} desc, ${column('day_failed')} desc, ${column('partner_id')}, ${column('endpoint_id')}`;
}
