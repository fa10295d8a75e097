/*
 * The questions asked of inbound webhooks: a filtered page (a partner's own, or across partners
 * for operators), and one webhook with what became of each of its documents and its replays.
 */
import { sql, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { DeliveryLogDb } from '../tables';
import type { DeliveryLogTables, DocumentsTable, WebhookReplaysTable, WebhooksTable } from '../tables';
import { pageOf, type Page, type PageCursor } from './page';
import { startsWith } from './prefix';

export interface WebhookFilter {
  partnerId?: string;
  /** Transaction numbers starting with this, whatever their case. */
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
  'trace_id',
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

/** A detail's replays: the newest this many (the summary counts them all). */
const DETAIL_REPLAYS = 50;

export type WebhookSummary = Pick<Selectable<WebhooksTable>, (typeof SUMMARY_COLUMNS)[number]> & {
  documents_stored: number;
  documents_failed: number;
  documents_pending: number;
  replay_count: number;
  last_replayed_at: Date | null;
};
export type WebhookDocument = Pick<Selectable<DocumentsTable>, (typeof DOCUMENT_COLUMNS)[number]>;
export type WebhookReplay = Pick<Selectable<WebhookReplaysTable>, 'replay_id' | 'received_at'>;

export interface WebhookDetail extends WebhookSummary {
  payload_fingerprint: string;
  documents: WebhookDocument[];
  replays: WebhookReplay[];
}

/** Its documents with this outcome, counted through their index on webhook_id. */
const documentsWith = (outcome: 'STORED' | 'FAILED' | 'PENDING') =>
  sql<number>`(select count(*) from documents d where d.webhook_id = webhooks.webhook_id and d.outcome = ${outcome})::integer`;

/** The summary's columns, with its documents and replays counted through their indexes on webhook_id (a page is at most a few hundred rows). */
function selectSummary<O>(query: SelectQueryBuilder<DeliveryLogTables, 'webhooks', O>) {
  return query
    .select(SUMMARY_COLUMNS)
    .select([
      documentsWith('STORED').as('documents_stored'),
      documentsWith('FAILED').as('documents_failed'),
      documentsWith('PENDING').as('documents_pending'),
      sql<number>`(select count(*) from webhook_replays r where r.webhook_id = webhooks.webhook_id)::integer`.as('replay_count'),
      sql<Date | null>`(select max(r.received_at) from webhook_replays r where r.webhook_id = webhooks.webhook_id)`.as('last_replayed_at'),
    ]);
}

export async function listWebhooks(db: DeliveryLogDb, filter: WebhookFilter): Promise<Page<WebhookSummary>> {
  let query = selectSummary(db.selectFrom('webhooks'));
  if (filter.partnerId !== undefined) query = query.where('partner_id', '=', filter.partnerId);
  if (filter.transactionNumber !== undefined) query = query.where(startsWith('transaction_number', filter.transactionNumber));
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
  let query = selectSummary(db.selectFrom('webhooks')).select('payload_fingerprint').where('webhook_id', '=', webhookId);
  if (partnerId !== undefined) query = query.where('partner_id', '=', partnerId);
  const webhook = await query.executeTakeFirst();
  if (!webhook) return undefined;
  const [documents, replays] = await Promise.all([
    db.selectFrom('documents').select(DOCUMENT_COLUMNS).where('webhook_id', '=', webhookId).orderBy('document_index').execute(),
    db
      .selectFrom('webhook_replays')
      .select(['replay_id', 'received_at'])
      .where('webhook_id', '=', webhookId)
      .orderBy('received_at', 'desc')
      .limit(DETAIL_REPLAYS)
      .execute(),
  ]);
  return { ...webhook, documents, replays };
}
