/*
 * The questions asked of inbound webhooks: a filtered page (a partner's own, or across partners
 * for operators), and one webhook with what became of each of its documents.
 */
import type { Selectable } from 'kysely';
import type { DeliveryLogDb } from '../store/database';
import type { DocumentsTable, WebhooksTable } from '../store/tables';
import { pageOf, type Page, type PageCursor } from './page';

export interface WebhookFilter {
  partnerId?: string;
  transactionNumber?: string;
  requestId?: string;
  from?: Date;
  to?: Date;
  cursor?: PageCursor;
  limit: number;
}

const SUMMARY_COLUMNS = [
  'webhook_id',
  'partner_id',
  'request_id',
  'transaction_number',
  'transaction_type',
  'status',
  'received_at',
] as const;
const DOCUMENT_COLUMNS = [
  'document_id',
  'document_index',
  'document_type',
  'source_url',
  'filename',
  'outcome',
  'content_type',
  'size_bytes',
  'sha256',
  'error',
  'failure_reason',
  'http_status',
  'attempts',
  'fetched_at',
] as const;

export type WebhookSummary = Pick<Selectable<WebhooksTable>, (typeof SUMMARY_COLUMNS)[number]>;
export type WebhookDocument = Pick<Selectable<DocumentsTable>, (typeof DOCUMENT_COLUMNS)[number]>;

export interface WebhookDetail extends WebhookSummary {
  payload_fingerprint: string;
  documents: WebhookDocument[];
}

export async function listWebhooks(db: DeliveryLogDb, filter: WebhookFilter): Promise<Page<WebhookSummary>> {
  let query = db.selectFrom('webhooks').select(SUMMARY_COLUMNS);
  if (filter.partnerId !== undefined) query = query.where('partner_id', '=', filter.partnerId);
  if (filter.transactionNumber !== undefined) query = query.where('transaction_number', '=', filter.transactionNumber);
  if (filter.requestId !== undefined) query = query.where('request_id', '=', filter.requestId);
  if (filter.from !== undefined) query = query.where('received_at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('received_at', '<', filter.to);
  const cursor = filter.cursor;
  if (cursor) query = query.where((eb) => eb(eb.refTuple('received_at', 'webhook_id'), '<', eb.tuple(cursor.at, cursor.id)));
  const rows = await query
    .orderBy('received_at', 'desc')
    .orderBy('webhook_id', 'desc')
    .limit(filter.limit + 1)
    .execute();
  return pageOf(rows, filter.limit, (row) => ({ at: row.received_at, id: row.webhook_id }));
}

/** One webhook with its documents in the order it listed them; undefined when unknown, or another partner's. */
export async function findWebhook(db: DeliveryLogDb, webhookId: string, partnerId?: string): Promise<WebhookDetail | undefined> {
  let query = db
    .selectFrom('webhooks')
    .select([...SUMMARY_COLUMNS, 'payload_fingerprint'])
    .where('webhook_id', '=', webhookId);
  if (partnerId !== undefined) query = query.where('partner_id', '=', partnerId);
  const webhook = await query.executeTakeFirst();
  if (!webhook) return undefined;
  const documents = await db
    .selectFrom('documents')
    .select(DOCUMENT_COLUMNS)
    .where('webhook_id', '=', webhookId)
    .orderBy('document_index')
    .execute();
  return { ...(webhook as WebhookSummary & { payload_fingerprint: string }), documents: documents };
}
