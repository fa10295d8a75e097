/*
 * The deliveries a retry now delivered (domain/send-callback.ts RetryNowDeliveries), in the state
 * store every sender replica shares (table retry_now_delivery): the record of the same delivery
 * still waiting in a retry tier asks here when it comes due, and sends nothing once a retry now was
 * delivered after it last waited. Only tier records ask, and the asks of one turn of the event loop
 * (a tier batch's records start together) go as one query, as latest-versions.ts does. Rows are
 * kept for the versions' window (a record older than that is in no tier) and swept with them.
 * The store unavailable: both calls reject (StoreUnavailableError); the record is read again later,
 * never sent or skipped unjudged.
 */
import { setImmediate } from 'node:timers';
import { sql, type Kysely } from 'kysely';
import { asStoreError } from '@hookstream/runtime';
import type { RetryNowDeliveries as RetryNowDeliveriesPort } from '../../domain/send-callback';
import type { VersionTables } from './version-table';

/** Most deliveries asked in one query. */
const MAX_ASKS_PER_QUERY = 1000;

interface Ask {
  deliveryId: string;
  since: number;
  resolve: (delivered: boolean) => void;
  reject: (error: unknown) => void;
}

export class RetryNowDeliveries implements RetryNowDeliveriesPort {
  private queued: Ask[] = [];

  constructor(
    /** The open store's database (LatestVersions.db: throws StoreUnavailableError while it is not open). */
    private readonly db: () => Kysely<VersionTables>,
    private readonly sweepBatchSize = 1000,
  ) {}

  deliveredSince(deliveryId: string, since: number): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queued.push({ deliveryId, since, resolve, reject });
      if (this.queued.length === 1) setImmediate(() => void this.askQueued());
    });
  }

  async recordDelivered(deliveryId: string, at: number): Promise<void> {
    try {
      await sql`
        insert into retry_now_delivery (delivery_id, delivered_at) values (${deliveryId}, ${at}::bigint)
        on conflict (delivery_id) do update set delivered_at = greatest(retry_now_delivery.delivered_at, excluded.delivered_at)`.execute(
        this.db(),
      );
    } catch (error) {
      throw asStoreError(error, 'record a retry now delivered');
    }
  }

  /** Deletes the rows delivered before `cutoff`, in bounded statements; resolves with how many (LatestVersions.sweep calls it). */
  async sweep(cutoff: number): Promise<number> {
    let deleted = 0;
    for (;;) {
      const result = await sql`
        delete from retry_now_delivery where ctid = any (array(
          select ctid from retry_now_delivery where delivered_at < ${cutoff}::bigint limit ${this.sweepBatchSize}))`.execute(this.db());
      const count = Number(result.numAffectedRows ?? 0n);
      deleted += count;
      if (count < this.sweepBatchSize) return deleted;
    }
  }

  private async askQueued(): Promise<void> {
    const asks = this.queued;
    this.queued = [];
    for (let i = 0; i < asks.length; i += MAX_ASKS_PER_QUERY) {
      const part = asks.slice(i, i + MAX_ASKS_PER_QUERY);
      try {
        const result = await sql<{ delivery_id: string; delivered_at: number }>`
          select delivery_id, delivered_at from retry_now_delivery
          where delivery_id = any(${part.map((a) => a.deliveryId)}::text[])`.execute(this.db());
        const deliveredAt = new Map(result.rows.map((r) => [r.delivery_id, Number(r.delivered_at)]));
        for (const a of part) a.resolve((deliveredAt.get(a.deliveryId) ?? -Infinity) > a.since);
      } catch (error) {
        const failure = asStoreError(error, 'read the deliveries retried now');
        for (const a of part) a.reject(failure);
      }
    }
  }
}
