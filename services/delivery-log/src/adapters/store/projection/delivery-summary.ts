/*
 * What a delivery is now, from its rows: its attempts (callback-outcomes), its dead letters
 * (callback-dlq) and the replays that re-queued it. Recomputed for every delivery a batch touched,
 * so the summary is the same whatever order the topics were read in.
 *
 * State, from the latest of these:
 * - delivered: its last attempt got a 200; superseded: a newer version went first (latest-wins);
 * - pending: nothing tried yet, or replayed (resent) since its last attempt and dead letter;
 * - dead_lettered: dead-lettered since its last attempt (or its last attempt was the last retry);
 * - failing: its last attempt failed (or was held by an open circuit) and retries remain.
 * An ALREADY_DELIVERED outcome (a tier's record a retry now made obsolete) is no attempt and never
 * the latest: it leaves a delivered delivery delivered. Nor does a send that failed after the
 * delivery was delivered (not resent since): a tier attempt in flight while a retry now delivered;
 * the sender sends nothing of it after that (callback-sender delivered-callbacks.ts), so the
 * delivery is delivered, with nothing next. A failing delivery's next attempt is the due
 * time its latest tier decision gave (a retry now's failure has none: the tier record keeps its own).
 */
import { TopicNames } from '@hookstream/kafka';
import { sql, type Transaction } from 'kysely';
import type { DeliveryLogTables } from '../tables';

/** Recomputes state, attempt count and the last attempt's figures of these deliveries. */
export async function summarizeDeliveries(trx: Transaction<DeliveryLogTables>, deliveryIds: string[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  await lockDeliveries(trx, deliveryIds);
  const deliveredBefore = sql`(s.delivered_at is not null and (s.replayed_at is null or s.replayed_at < s.delivered_at))`;
  await sql`
    update deliveries d set
      attempt_count = s.attempt_count,
      last_attempt_at = s.last_at,
      last_http_status = s.last_http_status,
      last_error_class = s.last_error_class,
      dead_lettered_at = s.dead_lettered_at,
      replay_count = s.replay_count,
      next_attempt_at = case
        when s.last_outcome in ('FAILED_ATTEMPT', 'SKIPPED_CIRCUIT_OPEN') and not ${deliveredBefore} then s.next_attempt_at
      end,
      state = case
        when s.last_outcome = 'DELIVERED' or ${deliveredBefore} then 'delivered'
        when s.last_outcome = 'SUPERSEDED' then 'superseded'
        when s.replayed_at is not null
          and (s.last_at is null or s.replayed_at > s.last_at)
          and (s.dead_lettered_at is null or s.replayed_at >= s.dead_lettered_at) then 'pending'
        when s.last_outcome = 'DEAD_LETTERED' then 'dead_lettered'
        when s.dead_lettered_at is not null and (s.last_at is null or s.dead_lettered_at >= s.last_at) then 'dead_lettered'
        when s.last_outcome is null then 'pending'
        else 'failing'
      end
    from (
      select
        d2.delivery_id,
        -- Sends only: a dead-lettering, a skip with the circuit open or a superseded one is no attempt.
        (select count(*) from delivery_attempts a
          where a.delivery_id = d2.delivery_id and a.outcome in ('DELIVERED', 'FAILED_ATTEMPT'))::integer as attempt_count,
        la.recorded_at as last_at,
        (select max(a.recorded_at) from delivery_attempts a
          where a.delivery_id = d2.delivery_id and a.outcome = 'DELIVERED') as delivered_at,
        la.outcome as last_outcome,
        la.error_class as last_error_class,
        -- The partner's last answer, even when later attempts got none (an open circuit, a timeout).
        (select a.http_status from delivery_attempts a
          where a.delivery_id = d2.delivery_id and a.http_status is not null
          order by a.recorded_at desc, a.source_partition desc, a.source_offset desc limit 1) as last_http_status,
        (select max(l.dead_lettered_at) from dead_letters l
          where l.subject_id = d2.delivery_id and l.source_topic = ${TopicNames.callbackDlq}) as dead_lettered_at,
        (select count(*) from replays r
          where r.subject_id = d2.delivery_id and r.source_topic = ${TopicNames.callbackDlq} and r.outcome = 'replayed')::integer as replay_count,
        (select max(r.replayed_at) from replays r
          where r.subject_id = d2.delivery_id and r.source_topic = ${TopicNames.callbackDlq} and r.outcome = 'replayed') as replayed_at,
        (select a.next_attempt_at from delivery_attempts a
          where a.delivery_id = d2.delivery_id and a.trigger is null and a.outcome <> 'ALREADY_DELIVERED'
          order by a.recorded_at desc, a.source_partition desc, a.source_offset desc limit 1) as next_attempt_at
      from deliveries d2
      left join lateral (
        select a.recorded_at, a.outcome, a.error_class from delivery_attempts a
        where a.delivery_id = d2.delivery_id and a.outcome <> 'ALREADY_DELIVERED'
        order by a.recorded_at desc, a.source_partition desc, a.source_offset desc limit 1
      ) la on true
      where d2.delivery_id = any(${deliveryIds})
    ) s
    where d.delivery_id = s.delivery_id`.execute(trx);
}

/**
 * Waits for every other transaction writing these deliveries' rows to end, then holds the rows.
 * Batches are written side by side (READ COMMITTED): were the summary's UPDATE the first to wait for
 * a row another batch holds, it would go on, once that batch commits, with the rows it read when
 * it started: PostgreSQL reads the target row again but not the attempts, dead letters and
 * replays of the subquery, so the other batch's attempt would be missing from the summary for
 * good. Locked in its own statement, the UPDATE after it takes a new snapshot (one per statement)
 * that sees what the other batch committed. In delivery_id order, so two batches locking some of
 * the same deliveries take them in the same order.
 */
async function lockDeliveries(trx: Transaction<DeliveryLogTables>, deliveryIds: string[]): Promise<void> {
  await sql`select delivery_id from deliveries where delivery_id = any(${deliveryIds}) order by delivery_id for update`.execute(trx);
}
