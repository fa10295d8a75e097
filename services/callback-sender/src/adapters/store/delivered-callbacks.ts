/*
 * The deliveries a retry now or a retry tier's record delivered (domain/send-callback-deps.ts
 * DeliveredCallbacks), in the state store every sender replica shares (table retry_now_delivery,
 * named when only retries now were recorded: a rename would break replicas of the version before
 * during a rolling upgrade). A tier's record and a retry now ask here before they send and send
 * nothing once their delivery is in it, whenever it was delivered: a check anchored on the record's
 * last failure let a tier attempt that failed after a retry now delivered send the callback again.
 * First sends neither ask nor record (a retry now is accepted only once a first send failed). The
 * asks of one turn of the event loop (a tier batch's records start together) go as one query, as
 * latest-versions.ts does. Rows are kept for the versions' window (a record older than that is in
 * no tier) and swept with them.
 * The store unavailable: both calls reject (StoreUnavailableError); the record is read again later,
 * never sent or skipped unjudged.
 */
import { setImmediate } from 'node:timers';
import { sql, type Kysely } from 'kysely';
import { asStoreError } from '@hookstream/runtime';
import type { DeliveredCallbacks as DeliveredCallbacksPort } from '../../domain/send-callback';
import type { VersionTables } from './version-table';

/** Most deliveries asked in one query. */
const MAX_ASKS_PER_QUERY = 1000;

interface Ask {
  deliveryId: string;
  resolve: (delivered: boolean) => void;
  reject: (error: unknown) => void;
}

export class DeliveredCallbacks implements DeliveredCallbacksPort {
  private queued: Ask[] = [];

  constructor(
    /** The open store's database (LatestVersions.db: throws StoreUnavailableError while it is not open). */
    private readonly db: () => Kysely<VersionTables>,
    private readonly sweepBatchSize = 1000,
  ) {}

  wasDelivered(deliveryId: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queued.push({ deliveryId, resolve, reject });
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
      throw asStoreError(error, 'record a delivery delivered');
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
        const result = await sql<{ delivery_id: string }>`
          select delivery_id from retry_now_delivery
          where delivery_id = any(${part.map((a) => a.deliveryId)}::text[])`.execute(this.db());
        const delivered = new Set(result.rows.map((r) => r.delivery_id));
        for (const a of part) a.resolve(delivered.has(a.deliveryId));
      } catch (error) {
        const failure = asStoreError(error, 'read the deliveries delivered');
        for (const a of part) a.reject(failure);
      }
    }
  }
}
