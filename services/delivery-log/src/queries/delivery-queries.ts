/*
 * The questions asked of deliveries: a filtered page of them (a partner's own, or across partners
 * for operators) and one delivery with everything that happened to it.
 */
import type { DeliveryLogDb } from '../store/database';
import type { DeliveryState } from '../store/tables';
import { pageOf, type Page, type PageCursor } from './page';

export interface DeliveryFilter {
  /** Only this partner's (always set for a partner; optional for operators). */
  partnerId?: string;
  state?: DeliveryState;
  policyNumber?: string;
  endpointId?: string;
  /** Made at or after. */
  from?: Date;
  /** Made before. */
  to?: Date;
  cursor?: PageCursor;
  limit: number;
}

export interface DeliverySummary {
  delivery_id: string;
  partner_id: string;
  endpoint_id: string;
  event_id: string;
  policy_number: string;
  policy_version: number;
  policy_status: string | null;
  state: DeliveryState;
  created_at: Date;
  attempt_count: number;
  last_attempt_at: Date | null;
  last_http_status: number | null;
  last_error_class: string | null;
  dead_lettered_at: Date | null;
  replay_count: number;
}

export interface DeliveryAttempt {
  attempt: number;
  outcome: string;
  http_status: number | null;
  error_class: string | null;
  latency_ms: number | null;
  tier: number;
  response_excerpt: string | null;
  recorded_at: Date;
}

export interface DeliveryReplay {
  replay_id: string;
  operator: string;
  reason: string;
  outcome: string;
  detail: string;
  replayed_at: Date;
}

export interface DeliveryDetail extends DeliverySummary {
  body: string | null;
  attempts: DeliveryAttempt[];
  replays: DeliveryReplay[];
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
] as const;

export async function listDeliveries(db: DeliveryLogDb, filter: DeliveryFilter): Promise<Page<DeliverySummary>> {
  let query = db.selectFrom('deliveries').select(SUMMARY_COLUMNS);
  if (filter.partnerId !== undefined) query = query.where('partner_id', '=', filter.partnerId);
  if (filter.state !== undefined) query = query.where('state', '=', filter.state);
  if (filter.policyNumber !== undefined) query = query.where('policy_number', '=', filter.policyNumber);
  if (filter.endpointId !== undefined) query = query.where('endpoint_id', '=', filter.endpointId);
  if (filter.from !== undefined) query = query.where('created_at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('created_at', '<', filter.to);
  const cursor = filter.cursor;
  if (cursor) query = query.where((eb) => eb(eb.refTuple('created_at', 'delivery_id'), '<', eb.tuple(cursor.at, cursor.id)));
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('delivery_id', 'desc')
    .limit(filter.limit + 1)
    .execute();
  return pageOf(rows as DeliverySummary[], filter.limit, (row) => ({ at: row.created_at, id: row.delivery_id }));
}

/** One delivery with its attempts and replays in the order they happened; undefined when unknown, or another partner's. */
export async function findDelivery(db: DeliveryLogDb, deliveryId: string, partnerId?: string): Promise<DeliveryDetail | undefined> {
  let query = db
    .selectFrom('deliveries')
    .select([...SUMMARY_COLUMNS, 'body'])
    .where('delivery_id', '=', deliveryId);
  if (partnerId !== undefined) query = query.where('partner_id', '=', partnerId);
  const delivery = await query.executeTakeFirst();
  if (!delivery) return undefined;
  const [attempts, replays] = await Promise.all([
    db
      .selectFrom('delivery_attempts')
      .select(['attempt', 'tier', 'outcome', 'http_status', 'error_class', 'latency_ms', 'response_excerpt', 'recorded_at'])
      .where('delivery_id', '=', deliveryId)
      .orderBy('recorded_at')
      .orderBy('source_partition')
      .orderBy('source_offset')
      .execute(),
    db
      .selectFrom('replays')
      .select(['replay_id', 'operator', 'reason', 'outcome', 'detail', 'replayed_at'])
      .where('subject_id', '=', deliveryId)
      .orderBy('replayed_at')
      .execute(),
  ]);
  return { ...(delivery as DeliverySummary & { body: string | null }), attempts, replays };
}
