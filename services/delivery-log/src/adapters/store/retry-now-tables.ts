/* The retry now's tables: the claims of those in flight, and when each was asked for (a timeline's step). */
import type { ColumnType } from 'kysely';

/** As tables.ts's: timestamptz, read as a Date. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** When a retry now of a delivery was asked for (its RETRY_NOW request's record timestamp; migration 0019). */
export interface RetryNowRequestsTable {
  delivery_id: string;
  partner_id: string;
  asked_at: Timestamp;
}

/** A retry now in flight (retry-now-claims.ts; migration 0015): at most one per delivery. */
export interface RetryNowClaimsTable {
  delivery_id: string;
  /** This claim's own id: a retry now that gives its claim back never takes a later one's. */
  claim_id: string;
  /** The delivery's attempts when it was accepted: the retry's own outcome is numbered after them. */
  attempts_before: number;
  claimed_at: Timestamp;
  /** When it stops holding even if no outcome came (the endpoint's timeout and a margin after it was accepted). */
  expires_at: Timestamp;
}
