/*
 * Retention of the delivery log: rows older than DELIVERY_LOG_RETENTION_DAYS go: a delivery with
 * its attempts, replays and the times retries now were asked, a webhook with its documents; on
 * their own a dead letter, a refused or a replayed webhook, and a document whose webhook the log
 * never had. The audit trail is kept a year, resend reservations only the hour they count in,
 * retry-now claims, console sessions and portal links until they expire, operational
 * notifications once settled and older than the retention. Deleted a thousand at a time, each
 * batch its own short transaction, so the projection's writes wait at most for one small batch,
 * never for a whole day's worth.
 */
import { sql, type RawBuilder } from 'kysely';
import type { Logger } from '@hookstream/runtime';
import type { DeliveryLogDb } from './tables';
import type { DeliveryLogTables } from './tables';

/** Rows removed per statement. */
const BATCH = 1000;
/** The key of a table with a row per record of a topic's partition (of one generation of the topic: migration 0009). */
const POSITION = ['source_generation', 'source_partition', 'source_offset'];
const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;

export interface PrunerOptions {
  db: DeliveryLogDb;
  logger: Logger;
  retentionDays: number;
  /** How often to prune. */
  intervalMs: number;
  now?: () => number;
}

/** What one pass removed. */
export interface Pruned {
  deliveries: number;
  webhooks: number;
  /** Documents without a webhook row (their record read, their webhook's never), by when they were fetched. */
  orphanDocuments: number;
  deadLetters: number;
  rejectedWebhooks: number;
  webhookReplays: number;
  auditRecords: number;
  resendReservations: number;
  selfServiceChanges: number;
  /** Retry-now claims past their expiry (retry-now-claims.ts): they hold nothing any more. */
  retryNowClaims: number;
  /** Console sessions and portal links past their expiry (a revoked one is kept until then: the list shows it). */
  issuedCredentials: number;
  /** Operational notifications settled (delivered, given up, suppressed) and older than the retention. */
  notifications: number;
}

/** The audit trail is kept as long as its topics keep it (admin-audit, dlq-replay-audit: 365 days), whatever the log's retention. */
const AUDIT_RETENTION_DAYS = 365;

export class Pruner {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: PrunerOptions) {}

  start(): Promise<void> {
    this.stopped = false;
    this.schedule(5_000);
    return Promise.resolve();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One pass: everything older than the retention, batch by batch, one table after another (in this order). */
  async prune(): Promise<Pruned> {
    const now = (this.options.now ?? Date.now)();
    const cutoff = new Date(now - this.options.retentionDays * DAY_MS);
    const auditCutoff = new Date(now - Math.max(AUDIT_RETENTION_DAYS, this.options.retentionDays) * DAY_MS);
    const { db } = this.options;
    return {
      deliveries: await this.inBatches(async () => {
        const result = await sql`
          with doomed as (select delivery_id from deliveries where created_at < ${cutoff} limit ${BATCH}),
            attempts as (delete from delivery_attempts where delivery_id in (select delivery_id from doomed)),
            replays as (delete from replays where subject_id in (select delivery_id from doomed)),
            retries_now as (delete from retry_now_requests where delivery_id in (select delivery_id from doomed))
          delete from deliveries where delivery_id in (select delivery_id from doomed)`.execute(db);
        return Number(result.numAffectedRows ?? 0);
      }),
      webhooks: await this.inBatches(async () => {
        const result = await sql`
          with doomed as (select webhook_id from webhooks where received_at < ${cutoff} limit ${BATCH}),
            documents as (delete from documents where webhook_id in (select webhook_id from doomed))
          delete from webhooks where webhook_id in (select webhook_id from doomed)`.execute(db);
        return Number(result.numAffectedRows ?? 0);
      }),
      // A document's record read before its webhook's has no webhook_id until the webhook's is read;
      // should that never come (its record outlived by the document's, a rebuild), the webhook's
      // deletion above never takes it: it goes by when it was fetched (always set on such a row).
      orphanDocuments: await this.olderThan(cutoff, {
        table: 'documents',
        key: ['document_id'],
        time: 'fetched_at',
        where: sql`webhook_id is null`,
      }),
      deadLetters: await this.olderThan(cutoff, {
        table: 'dead_letters',
        key: ['source_topic', ...POSITION],
        time: 'dead_lettered_at',
      }),
      rejectedWebhooks: await this.olderThan(cutoff, { table: 'rejected_webhooks', key: POSITION, time: 'received_at' }),
      webhookReplays: await this.olderThan(cutoff, { table: 'webhook_replays', key: POSITION, time: 'received_at' }),
      auditRecords: await this.olderThan(auditCutoff, { table: 'audit_log', key: ['audit_id'], time: 'at' }),
      // Out of the hour the resend limit counts them in.
      resendReservations: await this.olderThan(new Date(now - HOUR_MS), {
        table: 'resend_reservations',
        key: ['reservation_id'],
        time: 'reserved_at',
      }),
      // Out of the day the longest self-service limit counts them in.
      selfServiceChanges: await this.olderThan(new Date(now - 24 * HOUR_MS), {
        table: 'self_service_changes',
        key: ['change_id'],
        time: 'reserved_at',
      }),
      retryNowClaims: await this.olderThan(new Date(now), { table: 'retry_now_claims', key: ['delivery_id'], time: 'expires_at' }),
      issuedCredentials: await this.olderThan(new Date(now), { table: 'issued_credentials', key: ['credential_id'], time: 'expires_at' }),
      // One still to send is kept whatever its age (its attempts end within the retry schedule, about
      // an hour), unless its partner has no subscription left to send it to: then it never will be.
      notifications: await this.olderThan(cutoff, {
        table: 'notifications',
        key: ['notification_id'],
        time: 'occurred_at',
        where: sql`(state <> 'pending' or not exists (
          select 1 from notification_subscriptions s where s.partner_id = notifications.partner_id and s.url is not null))`,
      }),
    };
  }

  /** Deletes the rows of a table standing on its own whose `time` is before `cutoff` (and `where` holds), batch by batch. */
  private olderThan(
    cutoff: Date,
    of: { table: keyof DeliveryLogTables; key: string[]; time: string; where?: RawBuilder<unknown> },
  ): Promise<number> {
    const key = sql.join(of.key.map((column) => sql.ref(column)));
    const also = of.where ? sql`and ${of.where}` : sql``;
    return this.inBatches(async () => {
      const result = await sql`
        delete from ${sql.table(of.table)} where (${key}) in (
          select ${key} from ${sql.table(of.table)} where ${sql.ref(of.time)} < ${cutoff} ${also} limit ${BATCH})`.execute(this.options.db);
      return Number(result.numAffectedRows ?? 0);
    });
  }

  private async inBatches(batch: () => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      const removed = await batch();
      total += removed;
      if (removed < BATCH || this.stopped) return total;
      // Let the projection's next write in before the next batch.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.prune()
        .then((pruned) => {
          if (Object.values(pruned).some((n) => n > 0)) this.options.logger.info({ pruned }, 'delivery log pruned');
        })
        .catch((error: unknown) => this.options.logger.warn({ err: error }, 'pruning the delivery log failed; trying again later'))
        .finally(() => this.schedule(this.options.intervalMs));
    }, delayMs).unref();
  }
}
