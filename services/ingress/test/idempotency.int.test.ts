/**
 * request_id idempotency across ingress replicas and restarts (spec 4.2): two real ingress
 * processes on one Kafka and one PostgreSQL ledger, concurrent duplicates split across them, a
 * restart of both, an abandoned claim, and the ledger's store stopped.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { stateSchemaOf } from '@hookstream/runtime';
import { canonicalJson, payloadFingerprint } from '../src/domain/payload-fingerprint';
import { TestFixture } from '../../../test/helpers/fixture';
import { uniqueName } from '../../../test/helpers/infrastructure';
import { postWebhook, readPartnerEvents, webhook, type RunningIngress } from '../../../test/helpers/ingress';
import { startPostgres } from '../../../test/helpers/postgres';
import { freshStateDatabase, type StateDatabase } from '../../../test/helpers/state-database';

let fixture: TestFixture;
let database: StateDatabase;
let apiKey: string;
let replicas: RunningIngress[] = [];

const startReplicas = async () => {
  const env = { DATABASE_URL: database.url };
  replicas = await Promise.all([fixture.startIngress(env), fixture.startIngress(env)]);
};

beforeAll(async () => {
  fixture = await TestFixture.open('idem');
  database = await freshStateDatabase();
  apiKey = await fixture.partners.create('partner-a');
  await startReplicas();
}, 120_000);

afterAll(async () => {
  await fixture?.close();
  await database?.drop();
});

const recordsFor = async (requestId: unknown) => (await readPartnerEvents(fixture.prefix)).filter((r) => r.value.request_id === requestId);

describe('request_id idempotency across replicas', () => {
  test('when 50 identical requests arrive at once over two ingress processes, then all get the same 200 body and exactly one record is written', async () => {
    const body = webhook({ request_id: uniqueName('burst') });
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => postWebhook(replicas[i % 2]!.webhookUrl, apiKey, body)));
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(new Set(responses.map((r) => r.text)).size).toBe(1);
    expect(JSON.parse(responses[0]!.text)).toMatchObject({ status: 'success', request_id: body.request_id });
    expect(await recordsFor(body.request_id)).toHaveLength(1);
  }, 60_000);

  test('when two different payloads race under one request_id over two processes, then one wins everywhere and the other gets 409', async () => {
    const requestId = uniqueName('race');
    const a = webhook({ request_id: requestId, status: 'POLICY_ISSUING' });
    const b = { ...a, status: 'POLICY_ACTIVE' };
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        postWebhook(replicas[i % 2]!.webhookUrl, apiKey, i % 4 < 2 ? a : b).then((r) => ({ ...r, sent: i % 4 < 2 ? 'a' : 'b' })),
      ),
    );
    const records = await recordsFor(requestId);
    expect(records).toHaveLength(1);
    const winner = records[0]!.value.status === 'POLICY_ISSUING' ? 'a' : 'b';
    for (const r of responses) {
      if (r.sent === winner) expect(r.status).toBe(200);
      else expect(r.json).toMatchObject({ code: 409, error_code: 'IDEMPOTENCY_KEY_REUSED_ERR' });
    }
    expect(new Set(responses.filter((r) => r.status === 200).map((r) => r.text)).size).toBe(1);
  }, 60_000);

  test('when every ingress process restarts, then the same request_id gets the stored response and no second record; a different payload 409', async () => {
    const body = webhook({ request_id: uniqueName('restart') });
    const first = await postWebhook(replicas[0]!.webhookUrl, apiKey, body);
    expect(first.status).toBe(200);

    await Promise.all(replicas.map((r) => r.stop()));
    await startReplicas();

    for (const replica of replicas) {
      const again = await postWebhook(replica.webhookUrl, apiKey, body);
      expect(again.status).toBe(200);
      expect(again.text).toBe(first.text);
    }
    expect((await postWebhook(replicas[1]!.webhookUrl, apiKey, { ...body, status: 'OTHER' })).status).toBe(409);
    expect(await recordsFor(body.request_id)).toHaveLength(1);
  }, 120_000);

  test('when the replica that claimed a request_id died before completing, then a retry after the claim TTL takes over and succeeds once', async () => {
    const body = webhook({ request_id: uniqueName('orphan') });
    // What a replica killed between its claim and its event leaves behind: a claim, no completion.
    // The ledger's table is in the schema of this fixture's topic namespace.
    const sql = new Client({ connectionString: database.url, options: `-c search_path=${stateSchemaOf(fixture.prefix)}` });
    await sql.connect();
    await sql.query(
      `insert into ingress_request_ledger
         (partner_id, request_id, claim_id, fingerprint, claimant_instance, claimed_at, unchecked_since, expires_at)
       values ('partner-a', $1, $2, $3, 'a-replica-that-died', now() - interval '60 seconds', now() - interval '60 seconds', now() + interval '1 day')`,
      [body.request_id, randomUUID(), payloadFingerprint(JSON.parse(canonicalJson(body)))],
    );
    await sql.end();

    const response = await postWebhook(replicas[0]!.webhookUrl, apiKey, body);
    expect(response.status).toBe(200);
    expect((await postWebhook(replicas[1]!.webhookUrl, apiKey, body)).text).toBe(response.text);
    expect(await recordsFor(body.request_id)).toHaveLength(1);
  }, 60_000);

  test("when the ledger's PostgreSQL stops, then a webhook with a request_id is answered 503 with Retry-After, one without is accepted, and /readyz fails", async () => {
    const server = await startPostgres();
    let ingress: RunningIngress | undefined;
    try {
      ingress = await fixture.startIngress({ DATABASE_URL: server.url });
      const body = webhook({ request_id: uniqueName('down') });
      expect((await postWebhook(ingress.webhookUrl, apiKey, body)).status).toBe(200);
      await server.stop();

      const refused = await postWebhook(ingress.webhookUrl, apiKey, webhook({ request_id: uniqueName('down') }));
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(refused.json).toMatchObject({ code: 503, error_code: 'SERVICE_UNAVAILABLE_ERR' });
      expect(String(refused.json.message)).toMatch(/request_id ledger is unavailable/);
      const { request_id: _omitted, ...withoutId } = webhook();
      expect((await postWebhook(ingress.webhookUrl, apiKey, withoutId)).status).toBe(200);
      const ready = await fetch(`${ingress.opsUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ checks: { 'state-store': { ok: false } } });
      await ingress.stop();
    } catch (error) {
      // What the ingress wrote, to tell why.
      throw new Error(`${String(error)}\n${ingress?.output() ?? ''}`, { cause: error });
    } finally {
      await server.stop();
    }
  }, 120_000);
});
