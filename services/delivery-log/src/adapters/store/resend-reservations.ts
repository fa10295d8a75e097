/*
 * The hourly limit of a partner's resends and retries now (DELIVERY_LOG_RESENDS_PER_HOUR; one limit
 * for both), and the per-minute limit of its test events (kind test-event), kept by the partner API
 * itself: a resend takes a place before it is replayed and gives it back when it does not happen.
 * Counting the replays the projection reads back instead lets requests through while the log lags
 * behind, and lets concurrent ones all pass. Each reservation is counted and written in one
 * transaction that first takes an advisory lock keyed on the partner, so one partner's
 * reservations are made one at a time on every replica sharing the store; another partner's do
 * not wait. A partner's places are counted and written in its scope (partner-scope.ts, migration
 * 0016): its transactions see and may write only its own rows.
 */
import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { InTransaction } from './partner-scope';

const HOUR_MS = 3600_000;
/** The first key of the two-key advisory lock: which lock this is, so a partner's key meets no other kind of lock's. */
const LOCK_CLASS = 0x7e5e;

export type Reservation = { reserved: true; reservationId: string } | { reserved: false; retryAfterSeconds: number };

/** Which limit a reservation counts in: a partner's resends and retries now (by the hour), or its test events (by the minute). */
export type ReservationKind = 'resend' | 'test-event';

export class ResendReservations {
  constructor(
    /** Where the places are counted and written: a partner's scope (partnerTransactions), or the store's own user. */
    private readonly inTransaction: InTransaction,
    /** Reservations one partner may hold within the window. */
    private readonly perWindow: number,
    private readonly kind: ReservationKind = 'resend',
    /** The window they are counted in, ms; at most an hour (the pruner deletes older rows). Default an hour. */
    private readonly windowMs = HOUR_MS,
  ) {}

  /** A place for one resend of `deliveryId`, or when one frees when the partner has had its resends of the hour. */
  reserve(partnerId: string, deliveryId: string, now: Date): Promise<Reservation> {
    return this.inTransaction(async (trx) => {
      // Released at commit: whoever waited counts this reservation too.
      await sql`select pg_advisory_xact_lock(${LOCK_CLASS}::integer, ${lockKeyOf(partnerId, this.kind)}::integer)`.execute(trx);
      // The perWindow-th newest of the window: if there is one, the limit is reached until it leaves the window.
      const limiting = await trx
        .selectFrom('resend_reservations')
        .select('reserved_at')
        .where('partner_id', '=', partnerId)
        .where('kind', '=', this.kind)
        .where('reserved_at', '>', new Date(now.getTime() - this.windowMs))
        .orderBy('reserved_at', 'desc')
        .offset(this.perWindow - 1)
        .limit(1)
        .executeTakeFirst();
      if (limiting) {
        const freesAt = limiting.reserved_at.getTime() + this.windowMs;
        // At most an hour: a concurrent request that took its place after this one's `now` may have
        // reserved a moment later than `now` (the lock orders them, not their clocks).
        const seconds = Math.ceil((freesAt - now.getTime()) / 1000);
        return { reserved: false, retryAfterSeconds: Math.min(this.windowMs / 1000, Math.max(1, seconds)) };
      }
      const reservationId = randomUUID();
      await trx
        .insertInto('resend_reservations')
        .values({ reservation_id: reservationId, partner_id: partnerId, delivery_id: deliveryId, reserved_at: now, kind: this.kind })
        .execute();
      return { reserved: true, reservationId };
    });
  }

  /** The places the partner has left in the window (a later reserve may still be refused: others may take them first). */
  async left(partnerId: string, now: Date): Promise<number> {
    const row = await this.inTransaction((trx) =>
      trx
        .selectFrom('resend_reservations')
        .select((eb) => eb.fn.countAll<string>().as('taken'))
        .where('partner_id', '=', partnerId)
        .where('kind', '=', this.kind)
        .where('reserved_at', '>', new Date(now.getTime() - this.windowMs))
        .executeTakeFirst(),
    );
    return Math.max(0, this.perWindow - Number(row?.taken ?? 0));
  }

  /** Gives a place back: its resend did not happen. */
  async release(reservationId: string): Promise<void> {
    await this.inTransaction((trx) => trx.deleteFrom('resend_reservations').where('reservation_id', '=', reservationId).execute());
  }
}

/** The partner's half of the lock's key: any stable 32-bit number of its id (two partners sharing one only wait for each other). */
function lockKeyOf(partnerId: string, kind: ReservationKind): number {
  // A resend's key is the partner's alone, as before the kinds: replicas of either version lock alike.
  return createHash('sha256')
    .update(kind === 'resend' ? partnerId : `${kind}\n${partnerId}`)
    .digest()
    .readInt32BE(0);
}
