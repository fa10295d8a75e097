/*
 * The question asked of refused webhooks: a partner's own (or across partners, for operators),
 * newest first, a page at a time.
 */
import type { Selectable } from 'kysely';
import type { DeliveryLogDb } from '../tables';
import type { RejectedWebhooksTable } from '../tables';
import { pageOf, type Page, type PageCursor } from './page';

export interface RejectedWebhookFilter {
  /** Only this partner's (always set for a partner; optional for operators). */
  partnerId?: string;
  requestId?: string;
  from?: Date;
  to?: Date;
  cursor?: PageCursor;
  limit: number;
}

const COLUMNS = [
  'rejection_id',
  'partner_id',
  'received_at',
  'http_status',
  'error_code',
  'message',
  'fields',
  'request_id',
  'transaction_number',
  'payload_fingerprint',
] as const;

export type RejectedWebhook = Pick<Selectable<RejectedWebhooksTable>, (typeof COLUMNS)[number]>;

export async function listRejectedWebhooks(db: DeliveryLogDb, filter: RejectedWebhookFilter): Promise<Page<RejectedWebhook>> {
  let query = db.selectFrom('rejected_webhooks').select(COLUMNS);
  if (filter.partnerId !== undefined) query = query.where('partner_id', '=', filter.partnerId);
  if (filter.requestId !== undefined) query = query.where('request_id', '=', filter.requestId);
  if (filter.from !== undefined) query = query.where('received_at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('received_at', '<', filter.to);
  const cursor = filter.cursor;
  if (cursor) query = query.where((eb) => eb(eb.refTuple('received_at', 'rejection_id'), '<', eb.tuple(cursor.at, cursor.id)));
  const rows = await query
    .orderBy('received_at', 'desc')
    .orderBy('rejection_id', 'desc')
    .limit(filter.limit + 1)
    .execute();
  return pageOf(rows, filter.limit, (row) => ({ at: row.received_at, id: row.rejection_id }));
}
