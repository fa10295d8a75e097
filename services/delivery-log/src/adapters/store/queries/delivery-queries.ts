/*
 * The questions asked of deliveries: a filtered page of them (a partner's own, or across partners
 * for operators) and one delivery with everything that happened to it, and how to verify its signature.
 */
import type { DeliveryLogDb } from '../tables';
import type { Selectable } from 'kysely';
import type { DeliveriesTable, DeliveryAttemptsTable, DeliveryState, ReplaysTable } from '../tables';
import { pageOf, type Page, type PageCursor } from './page';
import { startsWith } from './prefix';
import { verificationOf, type Verification } from '../../../domain/signature-explanation';
import { deliveryTimeline, timeToDeliver, type TimelineStep } from '../../../domain/delivery-timeline';

export interface DeliveryFilter {
  /** Only this partner's (always set for a partner; optional for operators). */
  partnerId?: string;
  state?: DeliveryState;
  /** Policy numbers starting with this, whatever their case. */
  policyNumber?: string;
  endpointId?: string;
  /** Test events only (true) or real deliveries only (false); both when undefined. */
  test?: boolean;
  /** Made at or after. */
  from?: Date;
  /** Made before. */
  to?: Date;
  cursor?: PageCursor;
  limit: number;
}

const SUMMARY_COLUMNS = [
  'delivery_id',
  'partner_id',
  'endpoint_id',
  'event_id',
  'policy_number',
  'policy_version',
  'policy_status',
  'state',
  'created_at',
  'attempt_count',
  'last_attempt_at',
  'last_http_status',
  'last_error_class',
  'dead_lettered_at',
  'replay_count',
  'test',
  'next_attempt_at',
  'trace_id',
] as const;

const ATTEMPT_COLUMNS = [
  'attempt',
  'tier',
  'outcome',
  'http_status',
  'error_class',
  'latency_ms',
  'response_excerpt',
  'request_headers',
  'recorded_at',
  'trigger',
  'next_attempt_at',
  'trace_id',
] as const;
const REPLAY_COLUMNS = ['replay_id', 'operator', 'reason', 'outcome', 'detail', 'replayed_at'] as const;

/** A delivery as lists show it (no body). */
export type DeliverySummary = Pick<Selectable<DeliveriesTable>, (typeof SUMMARY_COLUMNS)[number]>;
export type DeliveryAttempt = Pick<Selectable<DeliveryAttemptsTable>, (typeof ATTEMPT_COLUMNS)[number]>;
export type DeliveryReplay = Pick<Selectable<ReplaysTable>, (typeof REPLAY_COLUMNS)[number]>;

export interface DeliveryDetail extends DeliverySummary {
  body: string | null;
  attempts: DeliveryAttempt[];
  replays: DeliveryReplay[];
  /** Null while the partner's outbound auth is unknown to the log (none, or not projected since migration 0004). */
  verification: Verification | null;
  /** Every step it went through, in order (domain/delivery-timeline.ts). */
  timeline: TimelineStep[];
  /** From its first step to its delivery, in ms; null until delivered. */
  time_to_deliver_ms: number | null;
}

export async function listDeliveries(db: DeliveryLogDb, filter: DeliveryFilter): Promise<Page<DeliverySummary>> {
  let query = db.selectFrom('deliveries').select(SUMMARY_COLUMNS);
  if (filter.partnerId !== undefined) query = query.where('partner_id', '=', filter.partnerId);
  if (filter.state !== undefined) query = query.where('state', '=', filter.state);
  if (filter.policyNumber !== undefined) query = query.where(startsWith('policy_number', filter.policyNumber));
  if (filter.endpointId !== undefined) query = query.where('endpoint_id', '=', filter.endpointId);
  if (filter.test !== undefined) query = query.where('test', '=', filter.test);
  if (filter.from !== undefined) query = query.where('created_at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('created_at', '<', filter.to);
  const cursor = filter.cursor;
  if (cursor) query = query.where((eb) => eb(eb.refTuple('created_at', 'delivery_id'), '<', eb.tuple(cursor.at, cursor.id)));
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('delivery_id', 'desc')
    .limit(filter.limit + 1)
    .execute();
  return pageOf(rows, filter.limit, (row) => ({ at: row.created_at, id: row.delivery_id }));
}

/** One delivery with its attempts and replays in the order they happened; undefined when unknown, or another partner's. */
export async function findDelivery(db: DeliveryLogDb, deliveryId: string, partnerId?: string): Promise<DeliveryDetail | undefined> {
  let query = db
    .selectFrom('deliveries')
    .select([...SUMMARY_COLUMNS, 'body', 'published_at'])
    .where('delivery_id', '=', deliveryId);
  if (partnerId !== undefined) query = query.where('partner_id', '=', partnerId);
  const row = await query.executeTakeFirst();
  if (!row) return undefined;
  const { published_at: publishedAt, ...delivery } = row;
  const [attempts, replays, partner, retriesNow] = await Promise.all([
    db
      .selectFrom('delivery_attempts')
      .select(ATTEMPT_COLUMNS)
      .where('delivery_id', '=', deliveryId)
      .orderBy('recorded_at')
      .orderBy('source_partition')
      .orderBy('source_offset')
      .execute(),
    db.selectFrom('replays').select(REPLAY_COLUMNS).where('subject_id', '=', deliveryId).orderBy('replayed_at').execute(),
    db.selectFrom('partners').select('outbound_auth_public').where('partner_id', '=', delivery.partner_id).executeTakeFirst(),
    db.selectFrom('retry_now_requests').select('asked_at').where('delivery_id', '=', deliveryId).orderBy('asked_at').execute(),
  ]);
  const auth = partner?.outbound_auth_public ?? null;
  // Outcomes that made no request (skips, dead-letterings, superseded) have no headers.
  const latestHeaders = attempts.findLast((a) => a.request_headers !== null)?.request_headers ?? null;
  const verification = auth === null ? null : verificationOf(auth, latestHeaders, delivery.body);
  const timeline = deliveryTimeline({
    publishedAt,
    // A row made from an attempt read before its request has no body yet, and its created_at is that attempt's.
    fannedOutAt: delivery.body === null ? null : delivery.created_at,
    attempts,
    replayedAt: replays.filter((r) => r.outcome === 'replayed').map((r) => r.replayed_at),
    retriedNowAt: retriesNow.map((r) => r.asked_at),
  });
  return { ...delivery, attempts, replays, verification, timeline, time_to_deliver_ms: timeToDeliver(timeline) };
}
