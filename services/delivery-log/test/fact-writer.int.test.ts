/**
 * The projection's writes on a real PostgreSQL server: what a delivery's
 * records make of it, in any order and any number of times; webhooks, documents and refused webhooks written again.
 */
import { TopicNames } from '@hookstream/kafka';
import { documentIdOf, webhookIdOf, type CallbackRequestValue, type InboundRejectionValue } from '@hookstream/contract';
import { type EncryptedSecret } from '@hookstream/runtime';
import { type Partner } from '@hookstream/partners';
import type { DeliveryLogStore } from '../src/adapters/store/database';
import { writeFacts } from '../src/adapters/store/projection/fact-writer';
import type { Fact } from '../src/entry/kafka/facts';
import { storesUnderTest } from './support/stores';
import { tableRows } from './support/table-rows';

const T0 = Date.parse('2026-11-25T10:00:00Z');
const request: CallbackRequestValue = {
  delivery_id: 'd-1',
  event_id: 'e-1',
  partner_id: 'acme',
  endpoint_id: 'main',
  policy_number: 'P-1',
  policy_version: 3,
  policy_status: 'POLICY_ACTIVE',
  body: '{"policy_number":"P-1"}',
  created_at: T0,
};
let offset = 0;
/** The headers the sender records of a send: an HMAC_SHA256 partner's key is redacted at the source, its signature kept. */
const sentHeaders = (n: number, at: number) => ({
  'content-type': 'application/json',
  'X-API-Key': '[redacted]',
  'X-Timestamp': new Date(at).toISOString(),
  'X-Signature': `c2lnbmF0dXJlIG9mIHNlbmQg${n}=`,
  'x-hookstream-attempt': String(n),
});
const attempt = (n: number, outcome: string, http_status: number | null, at: number): Fact => ({
  kind: 'attempt',
  partition: 2,
  offset: String(offset++),
  outcome: {
    ...request,
    attempt: n,
    outcome,
    http_status,
    error_class: outcome === 'DELIVERED' ? null : http_status ? 'HTTP_STATUS' : 'CIRCUIT_OPEN',
    latency_ms: http_status ? 12.5 : null,
    recorded_at: at,
    tier: outcome === 'SKIPPED_CIRCUIT_OPEN' ? 2 : n - 1,
    // What the sender keeps of an answer; no answer, no excerpt.
    response_excerpt: http_status ? `{"status":${http_status}}` : null,
    // Only a send has headers.
    request_headers_json: http_status ? JSON.stringify(sentHeaders(n, at)) : null,
  },
});
const deadLetter = (at: number): Fact => ({
  kind: 'dead-letter',
  request,
  deadLetter: {
    sourceTopic: TopicNames.callbackDlq,
    partition: 2,
    offset: String(at - T0),
    subjectId: 'd-1',
    partnerId: 'acme',
    attempts: 3,
    errorClass: 'CIRCUIT_OPEN',
    reason: '3 attempts failed',
    deadLetteredAt: at,
  },
});
const replay = (at: number): Fact => ({
  kind: 'replay',
  replay: {
    replay_id: `r-${at}`,
    operator: 'sre',
    actor_type: 'cli',
    actor_id: 'sre@host',
    started_at: at,
    selector_json: '{}',
    target_topic: TopicNames.callbackRequests,
    dry_run: false,
    delivery_id: 'd-1',
    source_partition: 2,
    source_offset: 7,
    replayed_at: at,
    replay_count: 1,
    source_topic: TopicNames.callbackDlq,
    reason: 'partner fixed',
    outcome: 'replayed',
    detail: '',
  },
});

// A delivery's life: a 500, an open circuit, dead-lettered, replayed, delivered.
const life: Fact[][] = [
  [{ kind: 'delivery', request }],
  [attempt(1, 'FAILED_ATTEMPT', 500, T0 + 1000)],
  [attempt(2, 'SKIPPED_CIRCUIT_OPEN', null, T0 + 2000), attempt(3, 'DEAD_LETTERED', null, T0 + 3000), deadLetter(T0 + 3001)],
  [replay(T0 + 60_000)],
  [attempt(1, 'DELIVERED', 200, T0 + 61_000)],
];
const statesAlong = ['pending', 'failing', 'dead_lettered', 'pending', 'delivered'];

for (const [name, store] of storesUnderTest()) {
  describe(`the projection's writes on ${name}`, () => {
    const open: DeliveryLogStore[] = [];
    const fresh = async () => {
      const s = await store.fresh();
      open.push(s);
      return s;
    };
    afterAll(async () => {
      await Promise.all(open.map((s) => s.close()));
      await store.stop();
    });

    test("a delivery failing, dead-lettered, replayed and delivered is in each state in turn, its attempts in order with the partner's answers", async () => {
      const { db } = await fresh();
      const seen: string[] = [];
      for (const batch of life) {
        await writeFacts(db, batch);
        seen.push((await db.selectFrom('deliveries').select('state').executeTakeFirstOrThrow()).state);
      }
      expect(seen).toEqual(statesAlong);
      const delivery = await db.selectFrom('deliveries').selectAll().executeTakeFirstOrThrow();
      expect(delivery).toMatchObject({ attempt_count: 2, last_http_status: 200, replay_count: 1, body: request.body, policy_version: 3 });
      const attempts = await db
        .selectFrom('delivery_attempts')
        .select(['attempt', 'outcome', 'response_excerpt'])
        .orderBy('recorded_at')
        .execute();
      expect(attempts.map((a) => [`${a.attempt}:${a.outcome}`, a.response_excerpt])).toEqual([
        ['1:FAILED_ATTEMPT', '{"status":500}'],
        ['2:SKIPPED_CIRCUIT_OPEN', null],
        ['3:DEAD_LETTERED', null],
        ['1:DELIVERED', '{"status":200}'],
      ]);
    });

    test("a delivery keeps its request's trace, not that of an attempt read first nor a dead letter's copy; each attempt keeps its own", async () => {
      const { db } = await fresh();
      const requestTrace = 'a'.repeat(32);
      const retryNowTrace = 'b'.repeat(32);
      const traced = (fact: Fact, traceId: string | null): Fact => ({ ...fact, traceId }) as Fact;
      // The first attempt's record is read before its request's (another partition): the row is made from it.
      await writeFacts(db, [traced(attempt(1, 'FAILED_ATTEMPT', 500, T0 + 1000), retryNowTrace)]);
      await writeFacts(db, [{ kind: 'delivery', request, traceId: requestTrace }]);
      await writeFacts(db, [traced(attempt(2, 'DEAD_LETTERED', null, T0 + 2000), requestTrace), deadLetter(T0 + 2001)]);
      // Written again (a batch read twice): the same rows.
      await writeFacts(db, [{ kind: 'delivery', request, traceId: requestTrace }]);
      expect(await db.selectFrom('deliveries').select('trace_id').execute()).toEqual([{ trace_id: requestTrace }]);
      const attempts = await db.selectFrom('delivery_attempts').select(['attempt', 'trace_id']).orderBy('attempt').execute();
      expect(attempts).toEqual([
        { attempt: 1, trace_id: retryNowTrace },
        { attempt: 2, trace_id: requestTrace },
      ]);
    });

    test("a send's headers land as recorded, outcomes without a request have none, and of a partner's auth only its public part is kept", async () => {
      const { db } = await fresh();
      const sealed = (text: string): EncryptedSecret => ({
        key_id: 'k1',
        iv: Buffer.alloc(12, 1),
        ciphertext: Buffer.from(`ciphertext-of-${text}`),
        tag: Buffer.alloc(16, 2),
      });
      const partner: Partner = {
        partner_id: 'acme',
        name: 'Acme',
        status: 'ACTIVE',
        revision: 1,
        updated_at: T0,
        api_keys: [],
        callback_endpoints: [
          {
            endpoint_id: 'main',
            url: 'https://acme.example/cb',
            timeout_ms: 5000,
            statuses: [],
            product_codes: [],
            ordering: 'LATEST_WINS',
          },
        ],
        outbound_auth: {
          method: 'HMAC_SHA256',
          api_key: sealed('api-key'),
          secret: sealed('hmac-secret'),
          key_header: 'X-API-Key',
          timestamp_header: 'X-Timestamp',
          signature_header: 'X-Signature',
        },
        body_mapping: { shape: 'FULL', rules: [], signature_field: null, absent_fields: 'OMIT' },
      };
      await writeFacts(db, [{ kind: 'partner', partnerId: 'acme', partner }]);
      for (const batch of life) await writeFacts(db, batch);
      // A record whose headers are not a JSON object of strings: kept without them, not refused (a refused batch is read again for ever).
      const odd = attempt(2, 'FAILED_ATTEMPT', 503, T0 + 62_000) as Extract<Fact, { kind: 'attempt' }>;
      await writeFacts(db, [{ ...odd, outcome: { ...odd.outcome, request_headers_json: '["not","an","object"]' } }]);

      const attempts = await db
        .selectFrom('delivery_attempts')
        .select(['attempt', 'outcome', 'request_headers'])
        .orderBy('recorded_at')
        .execute();
      expect(attempts.map((a) => [`${a.attempt}:${a.outcome}`, a.request_headers])).toEqual([
        ['1:FAILED_ATTEMPT', sentHeaders(1, T0 + 1000)],
        ['2:SKIPPED_CIRCUIT_OPEN', null],
        ['3:DEAD_LETTERED', null],
        ['1:DELIVERED', sentHeaders(1, T0 + 61_000)],
        ['2:FAILED_ATTEMPT', null],
      ]);
      expect(await db.selectFrom('partners').select(['outbound_auth_method', 'outbound_auth_public']).executeTakeFirstOrThrow()).toEqual({
        outbound_auth_method: 'HMAC_SHA256',
        outbound_auth_public: {
          method: 'HMAC_SHA256',
          key_header: 'X-API-Key',
          timestamp_header: 'X-Timestamp',
          signature_header: 'X-Signature',
        },
      });
      // No secret, nor any part of its encryption, anywhere in the store.
      const everything = JSON.stringify(await tableRows(db));
      for (const secret of [
        'ciphertext-of-',
        Buffer.from('ciphertext-of-').toString('base64'),
        '"key_id"',
        '"iv"',
        '"api_key"',
        '"secret"',
      ]) {
        expect(everything).not.toContain(secret);
      }
      expect(everything).not.toMatch(/X-API-Key":"(?!\[redacted\])/);
    });

    test("a dead letter whose last attempts got no answer keeps the partner's last HTTP status", async () => {
      const { db } = await fresh();
      for (const batch of life.slice(0, 3)) await writeFacts(db, batch);
      expect(await db.selectFrom('deliveries').select(['state', 'last_http_status', 'last_error_class']).executeTakeFirstOrThrow()).toEqual(
        {
          state: 'dead_lettered',
          last_http_status: 500,
          last_error_class: 'CIRCUIT_OPEN',
        },
      );
    });

    test('the same records written twice, or one by one in reverse order, give the same rows', async () => {
      const inOrder = await fresh();
      for (const batch of life) await writeFacts(inOrder.db, batch);
      const expected = await tableRows(inOrder.db);

      const twice = await fresh();
      for (const batch of [...life, ...life]) await writeFacts(twice.db, batch);
      expect(await tableRows(twice.db)).toEqual(expected);

      const reversed = await fresh();
      for (const fact of life.flat().reverse()) await writeFacts(reversed.db, [fact]);
      expect(await tableRows(reversed.db)).toEqual(expected);
      expect(expected['deliveries']).toHaveLength(1);
      expect(expected['delivery_attempts']).toHaveLength(4);
    });

    test('the audit trail holds each change once and each replay run once, with who and why', async () => {
      const { db } = await fresh();
      const change: Fact = {
        kind: 'audit',
        entry: {
          ...{ audit_id: 'a-1', at: T0, actor_type: 'operator', actor_id: 'op_1', actor_name: 'Ada', action: 'partner.disable' },
          ...{ subject_type: 'partner', subject_id: 'acme', reason: 'contract ended', detail_json: '{"revision":4}' },
        },
      };
      // Two decisions of one run (two records), and the same records read again.
      const decisions = [
        replay(T0 + 1000),
        { ...replay(T0 + 1000), replay: { ...(replay(T0 + 1000) as { replay: object }).replay, source_offset: 8 } },
      ];
      await writeFacts(db, [change, ...decisions] as Fact[]);
      await writeFacts(db, [change, ...decisions] as Fact[]);
      const trail = await db.selectFrom('audit_log').selectAll().orderBy('at').execute();
      expect(trail.map((a) => [a.action, a.actor_type, a.actor_id, a.actor_name, a.subject_id, a.reason, a.detail])).toEqual([
        ['partner.disable', 'operator', 'op_1', 'Ada', 'acme', 'contract ended', { revision: 4 }],
        [
          'dead-letters.replay',
          'cli',
          'sre@host',
          'sre',
          `r-${T0 + 1000}`,
          'partner fixed',
          { topic: TopicNames.callbackDlq, selection: {} },
        ],
      ]);
      expect(await db.selectFrom('replays').select(['actor_type', 'actor_id']).execute()).toEqual([
        { actor_type: 'cli', actor_id: 'sre@host' },
        { actor_type: 'cli', actor_id: 'sre@host' },
      ]);
    });

    test("a webhook written twice is one, its documents pending until recorded, and an older replay's record never wins", async () => {
      const { db } = await fresh();
      const event = {
        partner_id: 'acme',
        request_id: 'req-1',
        transaction_number: 'TRX-1',
        transaction_type: 'POLICY' as const,
        status: 'ISSUED',
        documents: [
          { type: 'POLICY_CERTIFICATE', url: 'https://docs.example/a.pdf', filename: 'a.pdf' },
          { type: 'INVOICE', url: 'https://docs.example/b.pdf', filename: null },
        ],
        received_at: T0,
        payload_fingerprint: 'f'.repeat(64),
        ingress_instance: null,
      };
      const webhook: Fact = {
        kind: 'webhook',
        webhookId: webhookIdOf(event),
        event,
        documentIds: [0, 1].map((i) => documentIdOf(event, i)),
      };
      await writeFacts(db, [webhook, webhook]);
      await writeFacts(db, [webhook]);
      const document = (replay: number, outcome: 'STORED' | 'FAILED'): Fact => ({
        kind: 'document',
        document: {
          ...event,
          document_type: 'POLICY_CERTIFICATE',
          source_url: 'https://docs.example/a.pdf',
          filename: 'a.pdf',
          outcome,
          storage_uri: outcome === 'STORED' ? 's3://docs/a' : null,
          content_type: null,
          size_bytes: outcome === 'STORED' ? 1234 : null,
          sha256: null,
          error: outcome === 'FAILED' ? 'HTTP 404' : null,
          fetched_at: T0 + 1000 * (replay + 1),
          document_id: documentIdOf(event, 0),
          document_index: 0,
          failure_reason: outcome === 'FAILED' ? 'HTTP_STATUS' : null,
          http_status: outcome === 'FAILED' ? 404 : null,
          attempts: 1,
          replay,
        },
      });
      await writeFacts(db, [document(1, 'STORED')]);
      await writeFacts(db, [document(0, 'FAILED')]);
      expect(await db.selectFrom('webhooks').select('webhook_id').execute()).toHaveLength(1);
      const documents = await db
        .selectFrom('documents')
        .select(['document_index', 'outcome', 'webhook_id', 'size_bytes'])
        .orderBy('document_index')
        .execute();
      expect(documents).toEqual([
        { document_index: 0, outcome: 'STORED', webhook_id: webhookIdOf(event), size_bytes: 1234 },
        { document_index: 1, outcome: 'PENDING', webhook_id: webhookIdOf(event), size_bytes: null },
      ]);
    });

    test('a refused webhook written twice, or read again in a later batch, is one row; another record of the same refusal is another', async () => {
      const { db } = await fresh();
      const rejection: InboundRejectionValue = {
        rejection_id: '7d0e8f52-3c1a-4a55-9f0e-2b7c1d9e6a01',
        partner_id: 'acme',
        received_at: T0,
        http_status: 400,
        error_code: 'INVALID_PAYLOAD_VALIDATION_ERR',
        message: 'transaction_number is required; documents[0].url must be an absolute http or https URL',
        fields: ['transaction_number', 'documents[0].url'],
        request_id: 'req-9',
        transaction_number: null,
        payload_fingerprint: 'e'.repeat(64),
        ingress_instance: 'ingress-1',
      };
      const refused = (offset: string): Fact => ({ kind: 'rejected-webhook', partition: 4, offset, rejection });
      await writeFacts(db, [refused('41'), refused('41')]);
      await writeFacts(db, [refused('41')]);
      const rows = await db.selectFrom('rejected_webhooks').selectAll().execute();
      expect(rows).toEqual([
        {
          source_generation: 0,
          source_partition: 4,
          source_offset: 41,
          rejection_id: rejection.rejection_id,
          partner_id: 'acme',
          received_at: new Date(T0),
          http_status: 400,
          error_code: 'INVALID_PAYLOAD_VALIDATION_ERR',
          message: rejection.message,
          fields: ['transaction_number', 'documents[0].url'],
          request_id: 'req-9',
          transaction_number: null,
          payload_fingerprint: 'e'.repeat(64),
          // A record without the request as it arrived (written before those fields): none kept.
          problems: [],
          request_headers: [],
          headers_truncated: false,
          body: null,
          body_size: null,
          body_truncated: false,
        },
      ]);
      // The position identifies the record: the same content at another offset is another record.
      await writeFacts(db, [refused('42')]);
      expect(await db.selectFrom('rejected_webhooks').select('source_offset').orderBy('source_offset').execute()).toEqual([
        { source_offset: 41 },
        { source_offset: 42 },
      ]);
      // So is a record at the same position of the topic created again (a new generation: topic-generations.ts).
      await writeFacts(db, [{ ...refused('41'), generation: 1 } as Fact]);
      expect(
        await db
          .selectFrom('rejected_webhooks')
          .select(['source_generation', 'source_offset'])
          .orderBy('source_generation')
          .orderBy('source_offset')
          .execute(),
      ).toEqual([
        { source_generation: 0, source_offset: 41 },
        { source_generation: 0, source_offset: 42 },
        { source_generation: 1, source_offset: 41 },
      ]);
    });

    test('a NUL from a partner (a response excerpt, a reason) is written as U+FFFD instead of refusing the batch', async () => {
      const { db } = await fresh();
      const audited: Fact = {
        kind: 'audit',
        entry: {
          ...{
            audit_id: 'a-nul',
            at: T0,
            actor_type: 'partner',
            actor_id: 'acme',
            actor_name: 'partner:acme',
            action: 'partner.rotate-key',
          },
          ...{ subject_type: 'partner', subject_id: 'acme', reason: 'bad\u0000reason', detail_json: '{"note":"x\\u0000y"}' },
        },
      };
      await writeFacts(db, [audited]);
      const row = await db.selectFrom('audit_log').select(['reason', 'detail']).executeTakeFirstOrThrow();
      expect(row).toEqual({ reason: 'bad\uFFFDreason', detail: { note: 'x\uFFFDy' } });
    });
  });
}
