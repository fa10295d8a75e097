/*
 * What the notifications' evaluator judges a partner's subjects by (domain/notification-events.ts),
 * from the attempts the sender recorded and the deliveries still dead-lettered:
 * - an enabled endpoint is failing when its sends have failed, with no success since, for at least
 *   `failingAfterMs` (the first failed send after its last success is that old), or when its
 *   partner's circuit is open as the failing-endpoints list judges it (circuitOpen: the partner's
 *   newest record a skip for, or a dead-lettering by, the open circuit); ok when its newest send
 *   succeeded; neither yet (no judgement: its state stays) while a failure is younger than that or
 *   nothing was sent in the last two such spans;
 * - the dead letters are waiting while any of its deliveries is dead-lettered and not resent.
 *
 * Cost per partner and pass: its newest record through delivery_attempts (partner_id, recorded_at)
 * (a backward scan that stops at the first), its sends of the last two `failingAfterMs` only (every
 * replica runs this every few seconds: a busy partner's whole day was read each time), and its dead
 * letters through their partial index. Two spans are enough: a failure with no success after it is
 * judged while it is between one and two spans old, and a state, once judged, stays until a later
 * judgement changes it.
 */
import { sql } from 'kysely';
import type { Partner } from '@hookstream/partners';
import type { Observation } from '../../../domain/notification-events';
import type { DeliveryLogDb } from '../tables';
import { circuitOpen, RECORDED } from './failing-endpoints';

const DAY_MS = 24 * 3_600_000;

/** The console's pages a notification points to (the console is served at /console/). */
const CONSOLE = { endpoints: '/console/#/endpoints', recover: '/console/#/recover' };

export function notificationObservations(db: DeliveryLogDb, failingAfterMs: number) {
  return async (partner: Partner, now: Date): Promise<Observation[]> => {
    const partnerId = partner.partner_id;
    const dayAgo = new Date(now.getTime() - DAY_MS);
    const sendsFrom = new Date(now.getTime() - 2 * failingAfterMs);
    const [newest, streaks, waiting] = await Promise.all([
      sql<{ open: boolean }>`
        select ${circuitOpen(sql.ref('outcome'), sql.ref('error_class'))} as open from delivery_attempts
        where partner_id = ${partnerId} and recorded_at >= ${dayAgo} and recorded_at <= ${now}
          and outcome in (${sql.join(RECORDED.map((o) => sql.lit(o)))})
        order by recorded_at desc limit 1`.execute(db),
      sql<{ endpoint_id: string; last_success: Date | null; failing_since: Date | null; failures: string }>`
        with sends as (
          select endpoint_id, outcome, recorded_at from delivery_attempts
          where partner_id = ${partnerId} and recorded_at >= ${sendsFrom} and recorded_at <= ${now}
            and endpoint_id is not null and outcome in ('DELIVERED', 'FAILED_ATTEMPT')
        ),
        successes as (
          select endpoint_id, max(recorded_at) filter (where outcome = 'DELIVERED') as last_success from sends group by endpoint_id
        )
        select s.endpoint_id, s.last_success,
          min(a.recorded_at) filter (where a.outcome = 'FAILED_ATTEMPT' and a.recorded_at > coalesce(s.last_success, '-infinity')) as failing_since,
          count(*) filter (where a.outcome = 'FAILED_ATTEMPT' and a.recorded_at > coalesce(s.last_success, '-infinity')) as failures
        from successes s join sends a on a.endpoint_id = s.endpoint_id
        group by s.endpoint_id, s.last_success`.execute(db),
      db
        .selectFrom('deliveries')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('partner_id', '=', partnerId)
        .where('state', '=', 'dead_lettered')
        .executeTakeFirstOrThrow(),
    ]);
    const circuitIsOpen = newest.rows[0]?.open === true;
    const byEndpoint = new Map(streaks.rows.map((row) => [row.endpoint_id, row]));
    const endpoints = partner.callback_endpoints
      .filter((e) => e.disabled !== true)
      .flatMap((e): Observation[] => {
        const row = byEndpoint.get(e.endpoint_id);
        const failures = Number(row?.failures ?? 0);
        const data = { endpoint_id: e.endpoint_id, endpoint_name: e.name ?? null, console_path: CONSOLE.endpoints };
        const failingLongEnough = row?.failing_since != null && row.failing_since.getTime() <= now.getTime() - failingAfterMs;
        if (circuitIsOpen || failingLongEnough) {
          const reason = circuitIsOpen ? 'circuit_open' : 'no_success';
          const since = row?.failing_since ?? null;
          return [
            {
              subject: `endpoint:${e.endpoint_id}`,
              state: 'failing',
              data: { ...data, reason, failed_attempts: failures, failing_since: since },
            },
          ];
        }
        if (row && failures === 0 && row.last_success) {
          return [{ subject: `endpoint:${e.endpoint_id}`, state: 'ok', data: { ...data, recovered_at: row.last_success } }];
        }
        return [];
      });
    const count = Number(waiting.count);
    const deadLetters: Observation = {
      subject: 'dead_letters',
      state: count > 0 ? 'waiting' : 'none',
      data: { dead_letters_waiting: count, console_path: CONSOLE.recover },
    };
    return [...endpoints, deadLetters];
  };
}
