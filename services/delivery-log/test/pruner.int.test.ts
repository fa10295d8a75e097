/**
 * Retention on a real PostgreSQL server: what is older than the retention goes with everything that hangs off
 * it (a delivery's attempts and replays, a webhook's documents), batch after batch; the rest stays.
 */
import { sql } from 'kysely';
import { TopicNames } from '@hookstream/kafka';
import { createLogger } from '@hookstream/runtime';
import { documentIdOf, type CallbackRequestValue, type InboundRejectionValue, type PartnerDocumentValue } from '@hookstream/contract';
import type { DeliveryLogStore } from '../src/adapters/store/database';
import { writeFacts } from '../src/adapters/store/projection/fact-writer';
import type { Fact } from '../src/entry/kafka/facts';
import { ownerTransactions } from '../src/adapters/store/partner-scope';
import { RetryNowClaims } from '../src/adapters/store/retry-now-claims';
import { ResendReservations } from '../src/adapters/store/resend-reservations';
import { Pruner, type Pruned } from '../src/adapters/store/pruner';
import { storesUnderTest } from './support/stores';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const NOW = Date.parse('2026-11-25T12:00:00Z');
/** A pass that removed nothing. */
const NOTHING: Pruned = {
  deliveries: 0,
  webhooks: 0,
  orphanDocuments: 0,
  deadLetters: 0,
  rejectedWebhooks: 0,
  webhookReplays: 0,
  auditRecords: 0,
  resendReservations: 0,
  selfServiceChanges: 0,
  retryNowClaims: 0,
  issuedCredentials: 0,
  notifications: 0,
};

const request = (id: string, createdAt: number): CallbackRequestValue => ({
  delivery_id: id,
  event_id: `e-${id}`,
  partner_id: 'acme',
  endpoint_id: 'main',
  policy_number: `P-${id}`,
  policy_version: 1,
  policy_status: 'POLICY_ACTIVE',
  body: '{}',
  created_at: createdAt,
});

function deliveryWithAttempt(id: string, at: number, offset: number): Fact[] {
  const r = request(id, at);
  return [
    { kind: 'delivery', request: r },
    {
      kind: 'attempt',
      partition: 0,
      offset: String(offset),
      outcome: {
        ...r,
        attempt: 1,
        outcome: 'DELIVERED',
        http_status: 200,
        error_class: null,
        latency_ms: 5,
        recorded_at: at + 10,
        tier: 0,
        response_excerpt: '{"ok":true}',
        request_headers_json: null,
      },
    },
  ];
}

/** A refused webhook received at `at`, at `offset` of inbound-rejections. */
function rejectedWebhook(at: number, offset: number): Fact {
  const rejection: InboundRejectionValue = {
    rejection_id: `rej-${offset}`,
    partner_id: 'acme',
    received_at: at,
    http_status: 409,
    error_code: 'IDEMPOTENCY_KEY_REUSED_ERR',
    message: 'request_id was already used with a different payload',
    fields: ['request_id'],
    request_id: `req-${offset}`,
    transaction_number: 'TRX-1',
    payload_fingerprint: null,
    ingress_instance: null,
  };
  return { kind: 'rejected-webhook', partition: 0, offset: String(offset), rejection };
}

/** An operator's change audited at `at`. */
function audited(id: string, at: number): Fact {
  return {
    kind: 'audit',
    entry: {
      ...{ audit_id: id, at, actor_type: 'operator', actor_id: 'op_1', actor_name: 'Ada', action: 'partner.update' },
      ...{ subject_type: 'partner', subject_id: 'acme', reason: 'rebrand', detail_json: '{"revision":2}' },
    },
  };
}

/** A dead letter of document-dlq, dead-lettered at `at`. */
function deadLetter(at: number, offset: number): Fact {
  return {
    kind: 'dead-letter',
    request: null,
    deadLetter: {
      ...{ sourceTopic: TopicNames.documentDlq, partition: 0, offset: String(offset), subjectId: `doc-${offset}`, partnerId: 'acme' },
      ...{ attempts: 3, errorClass: 'HTTP_STATUS', reason: 'HTTP 404', deadLetteredAt: at },
    },
  };
}

/** What became of a document fetched at `at`, read without its webhook's record (so its row has no webhook_id). */
function documentWithoutWebhook(transactionNumber: string, at: number): Extract<Fact, { kind: 'document' }> {
  const identity = { partner_id: 'acme', request_id: null, transaction_number: transactionNumber, payload_fingerprint: 'f'.repeat(64) };
  const document: PartnerDocumentValue = {
    ...{ partner_id: 'acme', request_id: null, transaction_number: transactionNumber, transaction_type: 'POLICY' },
    ...{ document_type: 'INVOICE', source_url: 'https://docs.example/a.pdf', filename: 'a.pdf', outcome: 'STORED' },
    ...{ storage_uri: 's3://docs/a', content_type: 'application/pdf', size_bytes: 10, sha256: null, error: null, fetched_at: at },
    ...{ document_id: documentIdOf(identity, 0), document_index: 0, failure_reason: null, http_status: null, attempts: 1, replay: 0 },
  };
  return { kind: 'document', document };
}

/** A pruner of the store keeping 30 days, at NOW. */
const prunerOf = (store: DeliveryLogStore) =>
  new Pruner({
    db: store.db,
    logger: createLogger({ service: 'test', level: 'silent' }),
    retentionDays: 30,
    intervalMs: 60_000,
    now: () => NOW,
  });

for (const [name, store] of storesUnderTest()) {
  describe(`retention on ${name}`, () => {
    let s: DeliveryLogStore;
    beforeAll(async () => {
      s = await store.fresh();
    });
    afterAll(async () => {
      await s?.close();
      await store.stop();
    });

    test('deliveries older than the retention go with their attempts, across several batches, refused webhooks too; younger ones stay', async () => {
      // 2,100 old deliveries (three batches of at most 1,000) and 3 recent ones.
      const old = Array.from({ length: 2100 }, (_, i) => deliveryWithAttempt(`old-${i}`, NOW - 40 * DAY + i, i)).flat();
      const recent = Array.from({ length: 3 }, (_, i) => deliveryWithAttempt(`new-${i}`, NOW - 2 * DAY, 10_000 + i)).flat();
      const refused = [rejectedWebhook(NOW - 31 * DAY, 1), rejectedWebhook(NOW - 31 * DAY, 2), rejectedWebhook(NOW - DAY, 3)];
      // The audit trail outlives the log's retention: a year, as its topics keep it.
      const audit = [audited('a-old', NOW - 366 * DAY), audited('a-kept', NOW - 40 * DAY)];
      await writeFacts(s.db, [...old, ...recent, ...refused, ...audit]);
      const pruner = prunerOf(s);
      expect(await pruner.prune()).toEqual({ ...NOTHING, deliveries: 2100, rejectedWebhooks: 2, auditRecords: 1 });
      expect(await s.db.selectFrom('audit_log').select(['audit_id', 'reason']).execute()).toEqual([
        { audit_id: 'a-kept', reason: 'rebrand' },
      ]);
      const left = await s.db.selectFrom('deliveries').select('delivery_id').orderBy('delivery_id').execute();
      expect(left.map((r) => r.delivery_id)).toEqual(['new-0', 'new-1', 'new-2']);
      const attempts = await s.db.selectFrom('delivery_attempts').select('delivery_id').execute();
      expect(attempts.map((a) => a.delivery_id).sort()).toEqual(['new-0', 'new-1', 'new-2']);
      const refusedLeft = await s.db.selectFrom('rejected_webhooks').select('rejection_id').execute();
      expect(refusedLeft).toEqual([{ rejection_id: 'rej-3' }]);
      expect(await pruner.prune()).toEqual(NOTHING);
    });

    test('dead letters and documents whose webhook the log never had go by their own time, resend reservations once out of the hour, retry-now claims once expired', async () => {
      const young = documentWithoutWebhook('TRX-NEW', NOW - DAY);
      await writeFacts(s.db, [
        deadLetter(NOW - 31 * DAY, 1),
        deadLetter(NOW - DAY, 2),
        documentWithoutWebhook('TRX-OLD', NOW - 31 * DAY),
        young,
      ]);
      const reservations = new ResendReservations(ownerTransactions(s.db), 10);
      await reservations.reserve('acme', 'd-1', new Date(NOW - 2 * HOUR));
      await reservations.reserve('acme', 'd-2', new Date(NOW - HOUR / 2));
      const claims = new RetryNowClaims(ownerTransactions(s.db));
      await claims.claim('d-1', 1, new Date(NOW - HOUR), new Date(NOW - 1));
      await claims.claim('d-2', 1, new Date(NOW - 1000), new Date(NOW + 1000));
      const pruner = prunerOf(s);
      expect(await pruner.prune()).toEqual({ ...NOTHING, deadLetters: 1, orphanDocuments: 1, resendReservations: 1, retryNowClaims: 1 });
      expect(await s.db.selectFrom('retry_now_claims').select('delivery_id').execute()).toEqual([{ delivery_id: 'd-2' }]);
      expect(await s.db.selectFrom('dead_letters').select('subject_id').execute()).toEqual([{ subject_id: 'doc-2' }]);
      expect(await s.db.selectFrom('documents').select(['document_id', 'webhook_id']).execute()).toEqual([
        { document_id: young.document.document_id, webhook_id: null },
      ]);
      expect(await s.db.selectFrom('resend_reservations').select('delivery_id').execute()).toEqual([{ delivery_id: 'd-2' }]);
      // Dead letters are found by age through an index, not by reading the whole table each pass.
      const indexes = await sql<{ indexdef: string }>`select indexdef from pg_indexes where tablename = 'dead_letters'`.execute(s.db);
      expect(indexes.rows.map((i) => i.indexdef)).toContainEqual(expect.stringMatching(/\(dead_lettered_at\)$/));
    });
  });
}
