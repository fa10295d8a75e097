/**
 * The request_id ledger on a real PostgreSQL (two ledger instances on one database stand for two
 * replicas) and, for a takeover's search, a real partner-events topic.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { AvroCodec, defaultSchemasDir } from '@hookstream/kafka';
import { createLogger, isStoreUnavailable } from '@hookstream/runtime';
import { AbandonedClaimSearch } from '../src/adapters/kafka/abandoned-claim-search';
import { IdempotencyLedger, MAX_SEARCHING, MAX_WAITING } from '../src/adapters/store/ledger';
import type { ClaimResult } from '../src/domain/request-id-ledger';
import { TestFixture } from '../../../test/helpers/fixture';
import { testInfrastructure } from '../../../test/helpers/infrastructure';
import { startPostgres } from '../../../test/helpers/postgres';
import { freshStateDatabase, type StateDatabase } from '../../../test/helpers/state-database';

const logger = createLogger({ service: 'ingress-test', level: 'warn' });
const TTL_MS = 15_000;
let fixture: TestFixture;
let codec: AvroCodec;
let database: StateDatabase;
let sql: Client;
let replicas: IdempotencyLedger[];

const partnerEvents = () => `${fixture.prefix}partner-events`;
const ledgerOn = (url: string, instance: string) =>
  new IdempotencyLedger({
    url,
    namespace: '',
    maxConnections: 10,
    instance,
    logger,
    claimTtlMs: TTL_MS,
    retentionMs: 3600_000,
    search: new AbandonedClaimSearch({ kafka: fixture.kafka, codec, topic: partnerEvents(), logger }),
  });
const completion = (requestId: string, fingerprint: string) => ({
  fingerprint,
  requestId,
  transactionNumber: 'TRX-1',
  transactionType: 'POLICY' as const,
});
/** What a replica that died after its claim leaves: a claim `ageMs` old, never completed. */
const abandonedClaim = async (requestId: string, ageMs: number, fingerprint = 'f1') => {
  await sql.query(
    `insert into ingress_request_ledger
       (partner_id, request_id, claim_id, fingerprint, claimant_instance, claimed_at, unchecked_since, expires_at)
     values ('partner-a', $1, $2, $3, 'a-replica-that-died', now() - make_interval(secs => $4), now() - make_interval(secs => $4), now() + interval '1 hour')`,
    [requestId, randomUUID(), fingerprint, ageMs / 1000],
  );
};

beforeAll(async () => {
  fixture = await TestFixture.open('ledger');
  codec = new AvroCodec(testInfrastructure().registryUrl, defaultSchemasDir());
  await codec.registerTopics([{ topic: partnerEvents(), schemaFile: 'partner-event.avsc' }]);
  database = await freshStateDatabase();
  replicas = [ledgerOn(database.url, 'replica-1'), ledgerOn(database.url, 'replica-2')];
  await Promise.all(replicas.map((r) => r.start()));
  sql = new Client({ connectionString: database.url });
  await sql.connect();
}, 120_000);

afterAll(async () => {
  await sql?.end();
  await Promise.all((replicas ?? []).map((r) => r.stop()));
  await database?.drop();
  await fixture?.close();
});

describe('the request_id ledger in PostgreSQL', () => {
  test('when 50 claims of one key race over two replicas, then exactly one wins and the others see its live claim', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => replicas[i % 2]!.claim('partner-a', 'race-1', 'f1', 1_000)));
    const won = results.filter((r) => r.kind === 'won');
    expect(won).toHaveLength(1);
    expect(results.filter((r) => r.kind === 'claimed')).toHaveLength(49);
  });

  test('when the winner completes, then a repeat gets its completion (the same fingerprint for the same payload, its own for another)', async () => {
    const first = await replicas[0]!.claim('partner-a', 'done-1', 'f1', 1_000);
    expect(first.kind).toBe('won');
    expect(await replicas[0]!.complete('partner-a', 'done-1', (first as { claimId: string }).claimId, completion('done-1', 'f1'))).toBe(
      true,
    );
    const again = await replicas[1]!.claim('partner-a', 'done-1', 'f2', 1_000);
    expect(again).toEqual({ kind: 'completed', completion: completion('done-1', 'f1') });
  });

  test('when a repeat waits for a claim in flight, then it gets the completion as soon as it is recorded', async () => {
    const first = (await replicas[0]!.claim('partner-a', 'wait-1', 'f1', 1_000)) as { claimId: string };
    const waiting = replicas[1]!.waitForCompletion('partner-a', 'wait-1', 5_000);
    setTimeout(() => void replicas[0]!.complete('partner-a', 'wait-1', first.claimId, completion('wait-1', 'f1')), 200);
    expect(await waiting).toEqual(completion('wait-1', 'f1'));
    expect(await replicas[1]!.waitForCompletion('partner-a', 'never-claimed', 100)).toBeUndefined();
  });

  test('when a claim is older than the TTL and not completed, then one of many concurrent retries takes it over', async () => {
    await abandonedClaim('orphan-1', 60_000);
    expect((await replicas[0]!.claim('partner-a', 'young-1', 'f1', 1_000)).kind).toBe('won');
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => replicas[i % 2]!.claim('partner-a', 'orphan-1', 'f1', 5_000)));
    expect(results.filter((r) => r.kind === 'won')).toHaveLength(1);
    // The others lost the race or saw the winner's claim; past a replica's search limit (four
    // attempts at once), one is told to retry later rather than queue a fifth search.
    const tooMany = (r: ClaimResult) => r.kind === 'unchecked' && r.why.includes('too many abandoned claims');
    expect(results.filter((r) => r.kind === 'won' || r.kind === 'lost' || r.kind === 'claimed' || tooMany(r))).toHaveLength(10);
    // The taker's claim starts again after its search: its write has the whole TTL.
    const { rows } = await sql.query(
      `select claimed_at > unchecked_since as renewed from ingress_request_ledger where partner_id = 'partner-a' and request_id = 'orphan-1'`,
    );
    expect(rows[0]).toEqual({ renewed: true });
    // A claim younger than the TTL is not taken over.
    expect((await replicas[1]!.claim('partner-a', 'young-1', 'f1', 1_000)).kind).toBe('claimed');
  }, 30_000);

  test("when the abandoned claimant's event is on partner-events after all, then the taker loses and answers from it", async () => {
    await abandonedClaim('orphan-2', 20_000, 'f-event');
    const producer = fixture.kafka.producer();
    await producer.connect();
    const value = await codec.encode(partnerEvents(), {
      partner_id: 'partner-a',
      request_id: 'orphan-2',
      transaction_number: 'TRX-ORPHAN',
      transaction_type: 'CLAIM',
      status: 'CLAIM_SUBMITTED',
      documents: [],
      received_at: Date.now() - 20_000,
      payload_fingerprint: 'f-event',
      ingress_instance: 'a-replica-that-died',
    });
    // Timestamped as its claimant would have: just after its claim.
    await producer.send({ topic: partnerEvents(), messages: [{ key: 'TRX-ORPHAN', value, timestamp: String(Date.now() - 19_900) }] });
    await producer.disconnect();

    const result: ClaimResult = await replicas[0]!.claim('partner-a', 'orphan-2', 'f-other', 10_000);
    const found = { fingerprint: 'f-event', requestId: 'orphan-2', transactionNumber: 'TRX-ORPHAN', transactionType: 'CLAIM' };
    expect(result).toEqual({ kind: 'completed', completion: found });
    // Recorded: the next one reads it from the row.
    expect(await replicas[1]!.claim('partner-a', 'orphan-2', 'f-event', 1_000)).toEqual({ kind: 'completed', completion: found });
  }, 30_000);

  test('when more repeats wait than a replica allows, then the extra ones are answered at once and the others still get the completion', async () => {
    const first = (await replicas[0]!.claim('partner-a', 'crowd-1', 'f1', 1_000)) as { claimId: string };
    const waiting = Array.from({ length: MAX_WAITING }, () => replicas[1]!.waitForCompletion('partner-a', 'crowd-1', 20_000));
    const extraStarted = Date.now();
    expect(await replicas[1]!.waitForCompletion('partner-a', 'crowd-1', 20_000)).toBeUndefined();
    expect(Date.now() - extraStarted).toBeLessThan(5_000);
    await replicas[0]!.complete('partner-a', 'crowd-1', first.claimId, completion('crowd-1', 'f1'));
    const answers = await Promise.all(waiting);
    expect(answers.filter((a) => a?.requestId !== 'crowd-1')).toEqual([]);
  }, 60_000);

  test('when more abandoned claims are retried at once than a replica searches, then the rest are left unchecked for a later retry', async () => {
    const keys = Array.from({ length: MAX_SEARCHING + 6 }, (_, i) => `orphan-crowd-${i}`);
    for (const key of keys) await abandonedClaim(key, 60_000);
    const results = await Promise.all(keys.map((key) => replicas[0]!.claim('partner-a', key, 'f1', 10_000)));
    expect(results.filter((r) => r.kind === 'won')).toHaveLength(MAX_SEARCHING);
    const left = keys.filter((_, i) => results[i]!.kind === 'unchecked');
    expect(left).toHaveLength(6);
    // Nothing was taken from them: a later retry takes each over.
    for (const key of left) expect((await replicas[1]!.claim('partner-a', key, 'f1', 10_000)).kind).toBe('won');
  }, 60_000);

  test('when rows are past their retention, then the sweep deletes them (in batches, on both replicas at once) and keeps the others', async () => {
    await sql.query(
      `insert into ingress_request_ledger
         (partner_id, request_id, claim_id, fingerprint, claimant_instance, claimed_at, unchecked_since, expires_at)
       select 'partner-old', 'old-' || i, gen_random_uuid(), 'f', 'r', now() - interval '2 days', now() - interval '2 days', now() - interval '1 day'
       from generate_series(1, 2500) i`,
    );
    const before = Number((await sql.query(`select count(*) from ingress_request_ledger where partner_id <> 'partner-old'`)).rows[0].count);
    const removed = await Promise.all(replicas.map((r) => r.deleteExpired()));
    expect(removed[0]! + removed[1]!).toBe(2500);
    expect(Number((await sql.query('select count(*) from ingress_request_ledger')).rows[0].count)).toBe(before);
  });

  test('when its PostgreSQL stops, then a claim fails as unavailable (never a claim it did not make) and the check fails', async () => {
    const server = await startPostgres();
    const ledger = ledgerOn(server.url, 'replica-3');
    try {
      await ledger.start();
      expect((await ledger.claim('partner-a', 'down-1', 'f1', 1_000)).kind).toBe('won');
      await server.stop();
      const error = await ledger.claim('partner-a', 'down-2', 'f1', 1_000).catch((e: unknown) => e);
      expect(isStoreUnavailable(error)).toBe(true);
      await expect(ledger.check()).rejects.toThrow();
    } finally {
      await ledger.stop();
      await server.stop();
    }
  }, 60_000);
});
