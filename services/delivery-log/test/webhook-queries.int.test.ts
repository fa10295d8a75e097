/**
 * What a webhook's summary says, on a real PostgreSQL server: its documents counted by outcome, and its replays
 * (inbound-replays): each record one row however often it is read, linked to its webhook by the id
 * partner-events gives it (so the order the two topics are read in does not matter), counted on
 * the summary and listed, newest first, on its detail; another partner never sees them.
 */
import { documentIdOf, webhookIdOf, type InboundReplayValue, type PartnerEventValue } from '@hookstream/contract';
import { writeFacts } from '../src/adapters/store/projection/fact-writer';
import type { Fact } from '../src/entry/kafka/facts';
import { findWebhook, listWebhooks } from '../src/adapters/store/queries/webhook-queries';
import type { DeliveryLogStore } from '../src/adapters/store/database';
import { storesUnderTest } from './support/stores';

const T0 = Date.parse('2026-11-25T10:00:00Z');
const event: PartnerEventValue = {
  partner_id: 'acme',
  request_id: 'req-1',
  transaction_number: 'TRX-1',
  transaction_type: 'POLICY',
  status: 'ISSUED',
  documents: [],
  received_at: T0,
  payload_fingerprint: 'f'.repeat(64),
  ingress_instance: null,
};
const webhook: Fact = { kind: 'webhook', webhookId: webhookIdOf(event), event, documentIds: [] };

const replay = (offset: number, at: number): Fact => {
  const value: InboundReplayValue = {
    replay_id: `r-${offset}`,
    partner_id: event.partner_id,
    received_at: at,
    request_id: event.request_id!,
    transaction_number: event.transaction_number,
    payload_fingerprint: event.payload_fingerprint,
    ingress_instance: 'ingress-1',
  };
  return { kind: 'webhook-replay', partition: 1, offset: String(offset), webhookId: webhookIdOf(value), replay: value };
};

for (const [name, store] of storesUnderTest()) {
  describe(name, () => {
    const opened: DeliveryLogStore[] = [];
    const fresh = async () => {
      const s = await store.fresh();
      opened.push(s);
      return s;
    };
    afterAll(async () => {
      for (const s of opened) await s.close();
      await store.stop();
    });

    test('replays read before and after their webhook, some twice, are counted once each on it, newest first', async () => {
      const { db } = await fresh();
      await writeFacts(db, [replay(7, T0 + 60_000), replay(7, T0 + 60_000)]);
      await writeFacts(db, [webhook]);
      await writeFacts(db, [replay(8, T0 + 120_000), replay(7, T0 + 60_000)]);

      const page = await listWebhooks(db, { partnerId: 'acme', limit: 10 });
      expect(page.items.map(({ webhook_id, replay_count, last_replayed_at }) => ({ webhook_id, replay_count, last_replayed_at }))).toEqual([
        { webhook_id: webhookIdOf(event), replay_count: 2, last_replayed_at: new Date(T0 + 120_000) },
      ]);
      const detail = await findWebhook(db, webhookIdOf(event), 'acme');
      expect(detail?.replays).toEqual([
        { replay_id: 'r-8', received_at: new Date(T0 + 120_000) },
        { replay_id: 'r-7', received_at: new Date(T0 + 60_000) },
      ]);
      expect(await findWebhook(db, webhookIdOf(event), 'other-partner')).toBeUndefined();
    });

    test('its documents are counted by what became of them', async () => {
      const { db } = await fresh();
      const withDocuments: PartnerEventValue = {
        ...event,
        request_id: 'req-docs',
        documents: [
          { type: 'POLICY_CERTIFICATE', url: 'https://docs.example/a.pdf', filename: 'a.pdf' },
          { type: 'INVOICE', url: 'https://docs.example/b.pdf', filename: null },
          { type: 'INVOICE', url: 'https://docs.example/c.pdf', filename: null },
        ],
      };
      const documentIds = [0, 1, 2].map((i) => documentIdOf(withDocuments, i));
      const recorded = (index: number, outcome: 'STORED' | 'FAILED'): Fact => ({
        kind: 'document',
        document: {
          ...withDocuments,
          document_id: documentIds[index]!,
          document_index: index,
          document_type: withDocuments.documents[index]!.type,
          source_url: withDocuments.documents[index]!.url,
          filename: withDocuments.documents[index]!.filename,
          outcome,
          storage_uri: outcome === 'STORED' ? 's3://docs/x' : null,
          content_type: null,
          size_bytes: outcome === 'STORED' ? 10 : null,
          sha256: null,
          error: outcome === 'FAILED' ? 'HTTP 404' : null,
          failure_reason: outcome === 'FAILED' ? 'HTTP_STATUS' : null,
          http_status: outcome === 'FAILED' ? 404 : null,
          attempts: 1,
          replay: 0,
          fetched_at: T0 + 1000,
        },
      });
      await writeFacts(db, [{ kind: 'webhook', webhookId: webhookIdOf(withDocuments), event: withDocuments, documentIds }]);
      await writeFacts(db, [recorded(0, 'STORED'), recorded(2, 'FAILED')]);
      const [summary] = (await listWebhooks(db, { requestId: 'req-docs', limit: 10 })).items;
      expect([summary?.documents_stored, summary?.documents_failed, summary?.documents_pending]).toEqual([1, 1, 1]);
    });

    test('a webhook never repeated has no replays', async () => {
      const { db } = await fresh();
      await writeFacts(db, [webhook]);
      const detail = await findWebhook(db, webhookIdOf(event));
      expect([detail?.replay_count, detail?.last_replayed_at, detail?.replays]).toEqual([0, null, []]);
      expect([detail?.documents_stored, detail?.documents_failed, detail?.documents_pending]).toEqual([0, 0, 0]);
    });
  });
}
