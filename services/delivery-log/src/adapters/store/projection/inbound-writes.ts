/*
 * The inbound side's facts and the partners as rows: webhooks with a PENDING row per document,
 * what became of each document (its latest replay's record wins), refused webhooks, and partners
 * without secrets (of the outbound auth, its method and public part only).
 */
import { publicOutboundAuth } from '@hookstream/partners';
import type { Insertable, Transaction } from 'kysely';
import type { DeliveryLogTables, DocumentsTable, EndpointSummary } from '../tables';
import type { Fact } from '../../../entry/kafka/facts';
import { insertChunked, lastByKey } from './batch-rows';

type Trx = Transaction<DeliveryLogTables>;
type FactOf<K extends Fact['kind']> = Extract<Fact, { kind: K }>;

export async function writePartners(trx: Trx, facts: FactOf<'partner'>[]): Promise<void> {
  for (const fact of lastByKey(facts, (f) => f.partnerId)) {
    if (!fact.partner) {
      await trx.deleteFrom('partners').where('partner_id', '=', fact.partnerId).execute();
      continue;
    }
    const p = fact.partner;
    const endpoints: EndpointSummary[] = p.callback_endpoints.map((e) => ({
      endpoint_id: e.endpoint_id,
      name: e.name ?? null,
      url: e.url,
      statuses: e.statuses,
      ordering: e.ordering,
    }));
    const row = {
      partner_id: p.partner_id,
      name: p.name,
      status: p.status,
      revision: p.revision,
      updated_at: new Date(p.updated_at),
      endpoints: JSON.stringify(endpoints),
      outbound_auth_method: p.outbound_auth?.method ?? null,
      // Never the auth itself: it holds the encrypted secrets.
      outbound_auth_public: p.outbound_auth ? JSON.stringify(publicOutboundAuth(p.outbound_auth)) : null,
    };
    await trx
      .insertInto('partners')
      .values(row)
      .onConflict((oc) =>
        oc
          .column('partner_id')
          .doUpdateSet((eb) => ({
            name: eb.ref('excluded.name'),
            status: eb.ref('excluded.status'),
            revision: eb.ref('excluded.revision'),
            updated_at: eb.ref('excluded.updated_at'),
            endpoints: eb.ref('excluded.endpoints'),
            outbound_auth_method: eb.ref('excluded.outbound_auth_method'),
            outbound_auth_public: eb.ref('excluded.outbound_auth_public'),
          }))
          .where('partners.revision', '<=', (eb) => eb.ref('excluded.revision')),
      )
      .execute();
  }
}

/** Webhooks, and a PENDING row for each of their documents until partner-documents says what became of it. */
export async function writeWebhooks(trx: Trx, facts: FactOf<'webhook'>[]): Promise<void> {
  const unique = lastByKey(facts, (f) => f.webhookId);
  const webhooks = unique.map(({ webhookId, event: e, traceId }) => ({
    webhook_id: webhookId,
    partner_id: e.partner_id,
    request_id: e.request_id,
    transaction_number: e.transaction_number,
    transaction_type: e.transaction_type,
    status: e.status,
    payload_fingerprint: e.payload_fingerprint,
    received_at: new Date(e.received_at),
    trace_id: traceId ?? null,
  }));
  await insertChunked(webhooks, (chunk) =>
    trx
      .insertInto('webhooks')
      .values(chunk)
      .onConflict((oc) => oc.column('webhook_id').doNothing())
      .execute(),
  );
  const pending: Insertable<DocumentsTable>[] = unique.flatMap(({ webhookId, event, documentIds }) =>
    event.documents.map((document, index) => ({
      document_id: documentIds[index]!,
      webhook_id: webhookId,
      partner_id: event.partner_id,
      document_index: index,
      document_type: document.type,
      source_url: document.url,
      filename: document.filename,
      outcome: 'PENDING',
      attempts: 0,
      replay: -1,
    })),
  );
  await insertChunked(pending, (chunk) =>
    trx
      .insertInto('documents')
      .values(chunk)
      .onConflict((oc) => oc.column('document_id').doUpdateSet((eb) => ({ webhook_id: eb.ref('excluded.webhook_id') })))
      .execute(),
  );
}

/** What became of each document: the record of its latest replay wins. */
export async function writeDocuments(trx: Trx, facts: FactOf<'document'>[]): Promise<void> {
  const latest = lastByKey(
    facts,
    (f) => f.document.document_id,
    (a, b) => a.document.replay >= b.document.replay,
  );
  const rows: Insertable<DocumentsTable>[] = latest.map(({ document: d }) => ({
    document_id: d.document_id,
    partner_id: d.partner_id,
    document_index: d.document_index,
    document_type: d.document_type,
    source_url: d.source_url,
    filename: d.filename,
    outcome: d.outcome,
    storage_uri: d.storage_uri,
    content_type: d.content_type,
    size_bytes: d.size_bytes,
    sha256: d.sha256,
    error: d.error,
    failure_reason: d.failure_reason,
    http_status: d.http_status,
    attempts: d.attempts,
    replay: d.replay,
    fetched_at: new Date(d.fetched_at),
  }));
  const updated = [
    'outcome',
    'storage_uri',
    'content_type',
    'size_bytes',
    'sha256',
    'error',
    'failure_reason',
    'http_status',
    'attempts',
    'replay',
    'fetched_at',
  ] as const;
  await insertChunked(rows, (chunk) =>
    trx
      .insertInto('documents')
      .values(chunk)
      .onConflict((oc) =>
        oc
          .column('document_id')
          .doUpdateSet((eb) => Object.fromEntries(updated.map((column) => [column, eb.ref(`excluded.${column}`)])))
          .where('documents.replay', '<', (eb) => eb.ref('excluded.replay')),
      )
      .execute(),
  );
}

/** Refused webhooks, one row per inbound-rejections record (keyed by its position, so a record read again writes nothing). */
export async function writeRejectedWebhooks(trx: Trx, facts: FactOf<'rejected-webhook'>[]): Promise<void> {
  const rows = facts.map(({ generation, partition, offset, rejection: r }) => ({
    source_generation: generation ?? 0,
    source_partition: partition,
    source_offset: offset,
    rejection_id: r.rejection_id,
    partner_id: r.partner_id,
    received_at: new Date(r.received_at),
    http_status: r.http_status,
    error_code: r.error_code,
    message: r.message,
    fields: JSON.stringify(r.fields),
    request_id: r.request_id,
    transaction_number: r.transaction_number,
    payload_fingerprint: r.payload_fingerprint,
    problems: JSON.stringify(r.problems ?? []),
    request_headers: JSON.stringify(r.request_headers ?? []),
    headers_truncated: r.headers_truncated ?? false,
    body: r.body ?? null,
    body_size: r.body_size ?? null,
    body_truncated: r.body_truncated ?? false,
  }));
  await insertChunked(rows, (chunk) =>
    trx
      .insertInto('rejected_webhooks')
      .values(chunk)
      .onConflict((oc) => oc.columns(['source_generation', 'source_partition', 'source_offset']).doNothing())
      .execute(),
  );
}

/** Webhooks answered from the ledger, one row per inbound-replays record (keyed by its position, so a record read again writes nothing). */
export async function writeWebhookReplays(trx: Trx, facts: FactOf<'webhook-replay'>[]): Promise<void> {
  const rows = facts.map(({ generation, partition, offset, webhookId, replay: r }) => ({
    source_generation: generation ?? 0,
    source_partition: partition,
    source_offset: offset,
    replay_id: r.replay_id,
    webhook_id: webhookId,
    partner_id: r.partner_id,
    received_at: new Date(r.received_at),
  }));
  await insertChunked(rows, (chunk) =>
    trx
      .insertInto('webhook_replays')
      .values(chunk)
      .onConflict((oc) => oc.columns(['source_generation', 'source_partition', 'source_offset']).doNothing())
      .execute(),
  );
}
