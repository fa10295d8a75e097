/*
 * How a partner's endpoints are doing, from the attempts the sender recorded: per endpoint, the
 * share of sends the partner answered with 200 and the 95th percentile of their latency over the
 * last hour and the last day; and the partner's circuit as the sender last reported it.
 */
import { sql } from 'kysely';
import type { DeliveryLogDb } from '../tables';

/**
 * Outcomes of an actual send (an HTTP request was made). A DEAD_LETTERED record repeats the last
 * failed attempt's (it is not another request); circuit-open skips and superseded deliveries are not sends.
 */
const SENDS = ['DELIVERED', 'FAILED_ATTEMPT'] as const;

export interface WindowHealth {
  sends: number;
  delivered: number;
  /** delivered / sends, null without sends. */
  success_rate: number | null;
  p95_latency_ms: number | null;
}

export interface HourHealth {
  /** The hour's start, in UTC hours whatever the server's TimeZone (a +05:30 zone's hours start at :30). */
  hour: Date;
  sends: number;
  delivered: number;
  p95_latency_ms: number | null;
}

export interface EndpointHealth {
  endpoint_id: string;
  url: string | null;
  last_hour: WindowHealth;
  last_day: WindowHealth;
  /** The last day hour by hour, oldest first; hours without sends are left out. */
  hourly: HourHealth[];
}

export interface PartnerHealth {
  /**
   * open: the sender's latest record for this partner is an attempt it skipped because the
   * partner's circuit was open, or a dead-lettering for that reason (CIRCUIT_OPEN: a delivery whose
   * retries ran out while skipped); closed: it is a send, or a dead-lettering after failed sends;
   * unknown: no attempt recorded in the last day.
   */
  circuit_state: 'open' | 'closed' | 'unknown';
  circuit_as_of: Date | null;
  endpoints: EndpointHealth[];
}

export async function endpointHealth(db: DeliveryLogDb, partnerId: string, now = new Date()): Promise<PartnerHealth> {
  const dayAgo = new Date(now.getTime() - 24 * 3600_000);
  const hourAgo = new Date(now.getTime() - 3600_000);
  const [partner, windows, hours, latest] = await Promise.all([
    db.selectFrom('partners').select('endpoints').where('partner_id', '=', partnerId).executeTakeFirst(),
    sql<{
      endpoint_id: string;
      hour_sends: number;
      hour_delivered: number;
      hour_p95: number | null;
      day_sends: number;
      day_delivered: number;
      day_p95: number | null;
    }>`
      select endpoint_id,
        count(*) filter (where recorded_at >= ${hourAgo}) as hour_sends,
        count(*) filter (where recorded_at >= ${hourAgo} and outcome = 'DELIVERED') as hour_delivered,
        percentile_cont(0.95) within group (order by latency_ms) filter (where recorded_at >= ${hourAgo}) as hour_p95,
        count(*) as day_sends,
        count(*) filter (where outcome = 'DELIVERED') as day_delivered,
        percentile_cont(0.95) within group (order by latency_ms) as day_p95
      from delivery_attempts
      where partner_id = ${partnerId} and recorded_at >= ${dayAgo} and recorded_at <= ${now} and outcome in (${sql.join([...SENDS])})
      group by endpoint_id`.execute(db),
    sql<{ endpoint_id: string; hour: Date; sends: number; delivered: number; p95: number | null }>`
      select endpoint_id, date_trunc('hour', recorded_at, 'UTC') as hour, count(*) as sends,
        count(*) filter (where outcome = 'DELIVERED') as delivered,
        percentile_cont(0.95) within group (order by latency_ms) as p95
      from delivery_attempts
      where partner_id = ${partnerId} and recorded_at >= ${dayAgo} and recorded_at <= ${now} and outcome in (${sql.join([...SENDS])})
      group by endpoint_id, hour
      order by hour`.execute(db),
    db
      .selectFrom('delivery_attempts')
      .select(['outcome', 'error_class', 'recorded_at'])
      .where('partner_id', '=', partnerId)
      .where('recorded_at', '>=', dayAgo)
      .where('outcome', 'in', [...SENDS, 'DEAD_LETTERED', 'SKIPPED_CIRCUIT_OPEN'])
      // A test event's send goes whatever the circuit and tells it nothing: it says nothing of the circuit either.
      .where((eb) => eb.or([eb('trigger', 'is', null), eb('trigger', '!=', 'TEST')]))
      .orderBy('recorded_at', 'desc')
      .limit(1)
      .executeTakeFirst(),
  ]);
  const byId = new Map(windows.rows.map((row) => [row.endpoint_id, row]));
  const configured = (partner?.endpoints ?? []).map((e) => ({ endpoint_id: e.endpoint_id, url: e.url }));
  // Endpoints since removed from the partner still show while their attempts are within the day.
  const removed = [...byId.keys()]
    .filter((id) => !configured.some((e) => e.endpoint_id === id))
    .map((id) => ({ endpoint_id: id, url: null }));
  const window = (sends: number, delivered: number, p95: number | null): WindowHealth => ({
    sends: Number(sends),
    delivered: Number(delivered),
    success_rate: Number(sends) > 0 ? Number(delivered) / Number(sends) : null,
    p95_latency_ms: p95 === null ? null : Math.round(Number(p95) * 10) / 10,
  });
  return {
    circuit_state: latest === undefined ? 'unknown' : circuitOpenBy(latest) ? 'open' : 'closed',
    circuit_as_of: latest?.recorded_at ?? null,
    endpoints: [...configured, ...removed].map((e) => {
      const row = byId.get(e.endpoint_id);
      return {
        ...e,
        last_hour: window(row?.hour_sends ?? 0, row?.hour_delivered ?? 0, row?.hour_p95 ?? null),
        last_day: window(row?.day_sends ?? 0, row?.day_delivered ?? 0, row?.day_p95 ?? null),
        hourly: hours.rows
          .filter((h) => h.endpoint_id === e.endpoint_id)
          .map((h) => ({ hour: new Date(h.hour), ...window(h.sends, h.delivered, h.p95) }))
          .map(({ hour, sends, delivered, p95_latency_ms }) => ({ hour, sends, delivered, p95_latency_ms })),
      };
    }),
  };
}

/** Whether the sender's record says the partner's circuit was open: it skipped the attempt, or dead-lettered the delivery because of it. */
function circuitOpenBy(record: { outcome: string; error_class: string | null }): boolean {
  return record.outcome === 'SKIPPED_CIRCUIT_OPEN' || (record.outcome === 'DEAD_LETTERED' && record.error_class === 'CIRCUIT_OPEN');
}
