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

/** A refused webhook opened: its list columns plus each field's message and the request as it arrived. */
export type RejectedWebhookDetail = RejectedWebhook & {
  problems: { field: string; message: string }[];
  request_headers: { name: string; value: string }[];
  headers_truncated: boolean;
  body: string | null;
  body_size: number | null;
  body_truncated: boolean;
};

/**
 * One refused webhook by its rejection_id, only among `partnerId`'s when given (another partner's
 * id finds nothing, as an unknown one). Rows projected before their request was kept have no
 * headers, no body, and each field's message is the answer's whole message.
 */
export async function findRejectedWebhook(
  db: DeliveryLogDb,
  rejectionId: string,
  partnerId: string | undefined,
): Promise<RejectedWebhookDetail | undefined> {
  let query = db
    .selectFrom('rejected_webhooks')
    .select([...COLUMNS, 'problems', 'request_headers', 'headers_truncated', 'body', 'body_size', 'body_truncated'])
    .where('rejection_id', '=', rejectionId);
  if (partnerId !== undefined) query = query.where('partner_id', '=', partnerId);
  // A record read again from another generation of its topic is the same rejection: the newest row.
  const row = await query.orderBy('source_generation', 'desc').limit(1).executeTakeFirst();
  if (!row) return undefined;
  return {
    ...row,
    problems: row.problems ?? row.fields.map((field) => ({ field, message: row.message })),
    request_headers: row.request_headers ?? [],
    body_size: row.body_size === null ? null : Number(row.body_size),
  };
}
