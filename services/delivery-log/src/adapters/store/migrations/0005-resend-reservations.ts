import { sql, type Kysely, type Migration } from 'kysely';

export const resendReservations: Migration = {
  async up(db: Kysely<unknown>) {
    // A partner's resends of the last hour, written by the partner API itself when it accepts one
    // (resend-reservations.ts): the hourly limit holds at once and across replicas, where counting
    // the replays the projection reads back lags behind. The API's own state, not a projection of
    // the topics; pruned once older than the hour it counts in.
    await sql`
      create table resend_reservations (
        reservation_id text primary key,
        partner_id text not null,
        delivery_id text not null,
        reserved_at timestamptz not null
      )`.execute(db);
    await sql`create index resend_reservations_partner_time on resend_reservations (partner_id, reserved_at)`.execute(db);
    await sql`create index resend_reservations_time on resend_reservations (reserved_at)`.execute(db);
  },
};
