/**
 * Every operation of the partner API, as the served OpenAPI document lists them, called with a
 * partner's API key on the real routes composed in-process over a real PostgreSQL: each query it
 * makes, read or write, runs, as PostgreSQL itself sees it, as the partner role with the caller's
 * partner set (row security, migrations 0010 and 0016), and the writes each makes are named. The
 * routes reach the store only through forPartner's handle (adapters/store/partner-store.ts), here
 * built on a database that records each query's role.
 *
 * The partner directory, the partner changes, the replay lanes and the callback writer are stand-ins
 * (they are Kafka's, and what is claimed here is only the store's): a retry now, a retry of an
 * endpoint's failing deliveries and a test event are written; a change, a resend and a recovery through them are refused, after a change's or a resend's
 * place under the limit was taken and given back (a recovery takes its places only once Kafka's
 * replay plan is made: partner-scoped-reads.int.test.ts shows them in the scope).
 */
import express from 'express';
import { ErrorCodes, Refusal } from '@hookstream/errors';
import type { Partner, PartnerChanges, PartnerDirectory } from '@hookstream/partners';
import { createLogger, startHttpServer, type RunningHttpServer } from '@hookstream/runtime';
import type { ConsoleSessions } from '../../src/adapters/signing/console-sessions';
import type { PortalTokens } from '../../src/adapters/signing/portal-tokens';
import { readSamplePolicy } from '../../src/adapters/storage/sample-policy';
import { TopicNames, defaultSchemasDir } from '@hookstream/kafka';
import type { ReplayLanes } from '../../src/adapters/kafka/replay-lanes';
import type { DeliveryLogStore } from '../../src/adapters/store/database';
import { PARTNER_READER_ROLE } from '../../src/adapters/store/partner-scope';
import { partnerScopes } from '../../src/adapters/store/partner-store';
import { writeFacts } from '../../src/adapters/store/projection/fact-writer';
import type { DeliveryLogDb } from '../../src/adapters/store/tables';
import { DeadLetterRecovery } from '../../src/domain/recover-dead-letters';
import { DeliveryResender } from '../../src/domain/resend-delivery';
import { DeliveryRetrier } from '../../src/domain/retry-delivery';
import { FailingDeliveriesRetry } from '../../src/domain/retry-failing-deliveries';
import { sendTestEvent } from '../../src/domain/send-test-event';
import { answerOfError } from '../../src/entry/http/api-router';
import { authenticatePartner } from '../../src/entry/http/auth/partner-auth';
import { deliveryLogOpenApi } from '../../src/entry/http/openapi/openapi';
import type { PartnerUseCases } from '../../src/entry/http/partner-handle';
import { PORTAL_BASE } from '../../src/entry/http/paths';
import { portalRoutes } from '../../src/entry/http/portal-routes';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../../test/helpers/state-database';
import { attemptOf, callbackRequest } from '../support/callback-facts';
import { recordingDb, type SeenQuery } from '../support/recording-db';
import { storeAt } from '../support/stores';

const PARTNER_ID = 'partner-a';
const API_KEY = 'partner-a-key';
const partner = {
  partner_id: PARTNER_ID,
  name: 'A',
  status: 'ACTIVE',
  revision: 1,
  updated_at: 0,
  api_keys: [],
  callback_endpoints: [
    { endpoint_id: 'main', url: 'https://a.example/cb', timeout_ms: 200, statuses: [], product_codes: [], ordering: 'LATEST_WINS' },
  ],
  outbound_auth: null,
  body_mapping: { shape: 'MAPPED', absent_fields: 'OMIT', rules: [{ source: 'policy_number', target: 'policy' }] },
} as unknown as Partner;

/**
 * The partner's failing delivery (a retry now's), one failing to another endpoint (retried with the
 * endpoint's others: the first is in flight by then) and its dead-lettered one (a resend's, a recovery's).
 */
const FAILING = callbackRequest('failing', Date.parse('2026-11-25T10:00:00Z'), { partnerId: PARTNER_ID });
const FAILING_ELSEWHERE = callbackRequest('failing-elsewhere', Date.parse('2026-11-25T10:00:00Z'), {
  partnerId: PARTNER_ID,
  endpointId: 'elsewhere',
});
const DEAD = callbackRequest('dead', Date.parse('2026-11-25T10:00:00Z'), { partnerId: PARTNER_ID });

const PLACE_TAKEN_AND_GIVEN_BACK = ['delete from self_service_changes', 'insert into self_service_changes'];

/**
 * Each operation's request (path parameters are `id`, else `main`), whether it reaches the store at
 * all, and the writes it makes there (statement and table).
 */
const CALLS: Record<string, { body?: unknown; id?: string; reachesStore: boolean; writes?: string[] }> = {
  'GET /deliveries': { reachesStore: true },
  'GET /deliveries/{deliveryId}': { reachesStore: true },
  'POST /deliveries/{deliveryId}/resend': {
    body: {},
    id: DEAD.delivery_id,
    reachesStore: true,
    writes: ['delete from resend_reservations', 'insert into resend_reservations'],
  },
  'POST /deliveries/{deliveryId}/retry': {
    body: {},
    id: FAILING.delivery_id,
    reachesStore: true,
    writes: ['insert into resend_reservations', 'insert into retry_now_claims'],
  },
  'POST /endpoints/{endpointId}/retry-failing': {
    body: { dry_run: false },
    id: 'elsewhere',
    reachesStore: true,
    writes: ['insert into resend_reservations', 'insert into retry_now_claims'],
  },
  'POST /dead-letters/recover': { body: { since: '2026-01-01T00:00:00Z', endpoint_id: 'main' }, reachesStore: true },
  'GET /webhooks': { reachesStore: true },
  'GET /webhooks/{webhookId}': { reachesStore: true },
  'GET /rejected-webhooks': { reachesStore: true },
  'GET /rejected-webhooks/{rejectionId}': { reachesStore: true },
  'POST /api-keys/rotate': { body: {}, reachesStore: false },
  'POST /endpoints/{endpointId}/test': {
    body: { status: 'POLICY_ACTIVE' },
    reachesStore: true,
    writes: ['insert into resend_reservations'],
  },
  'GET /endpoints': { reachesStore: true },
  'POST /endpoints': { body: { url: 'https://a.example/other' }, reachesStore: true, writes: PLACE_TAKEN_AND_GIVEN_BACK },
  'PATCH /endpoints/{endpointId}': { body: { timeout_ms: 5000 }, reachesStore: true, writes: PLACE_TAKEN_AND_GIVEN_BACK },
  'DELETE /endpoints/{endpointId}': { body: {}, reachesStore: true, writes: PLACE_TAKEN_AND_GIVEN_BACK },
  'GET /signing-secret': { reachesStore: false },
  'GET /event-types': { reachesStore: false },
  'POST /signing-secret/rotate': { body: {}, reachesStore: true, writes: PLACE_TAKEN_AND_GIVEN_BACK },
  'POST /signing-secret/activate': { body: {}, reachesStore: false },
  'GET /notifications': { reachesStore: true },
  // Refused (409) before the store: this partner's callbacks have no signing secret to sign notifications with.
  'PUT /notifications': { body: { url: 'https://a.example/n' }, reachesStore: false },
  // 404 (no subscription), after looking in the store for one to unsubscribe (none: nothing pending is
  // settled), its place under the limit taken and given back.
  'DELETE /notifications': {
    body: {},
    reachesStore: true,
    writes: [...PLACE_TAKEN_AND_GIVEN_BACK, 'update notification_subscriptions'].sort(),
  },
  'GET /notifications/sent': { reachesStore: true },
};

/** The writes among `queries`, each once, as "insert into <table>" (or delete from, update). */
function writesOf(queries: SeenQuery[]): string[] {
  const writes = queries.map(({ sql }) => /^\s*(insert into|delete from|update)\s+"?(\w+)"?/i.exec(sql)).filter((match) => match !== null);
  return [...new Set(writes.map((match) => `${match[1]!.toLowerCase()} ${match[2]!}`))].sort();
}

const seen: SeenQuery[] = [];
let database: StateDatabase;
let store: DeliveryLogStore;
let db: DeliveryLogDb;
let api: RunningHttpServer;

beforeAll(async () => {
  database = await freshStateDatabase();
  store = await storeAt(database.url);
  await writeFacts(store.db, [
    { kind: 'delivery', request: FAILING },
    attemptOf(FAILING, Date.parse('2026-11-25T10:00:01Z'), { outcome: 'FAILED_ATTEMPT', httpStatus: 503 }),
    { kind: 'delivery', request: FAILING_ELSEWHERE },
    attemptOf(FAILING_ELSEWHERE, Date.parse('2026-11-25T10:00:01Z'), { outcome: 'FAILED_ATTEMPT', httpStatus: 503 }),
    { kind: 'delivery', request: DEAD },
    {
      kind: 'dead-letter',
      request: DEAD,
      deadLetter: {
        ...{ sourceTopic: TopicNames.callbackDlq, partition: 0, offset: '0', subjectId: DEAD.delivery_id, partnerId: PARTNER_ID },
        ...{ attempts: 8, errorClass: 'HTTP_STATUS', reason: 'HTTP 503', deadLetteredAt: Date.parse('2026-11-25T11:00:00Z') },
      },
    },
  ]);
  db = recordingDb(database.url, seen);
  const refused = () => Promise.reject(new Refusal(ErrorCodes.CONFLICT, 'the stand-in makes no change'));
  const partners = {
    ready: true,
    get: (id: string) => (id === PARTNER_ID ? partner : undefined),
    checkApiKey: (key: string | undefined) => (key === API_KEY ? { ok: true, partner } : { ok: false }),
  } as unknown as PartnerDirectory;
  const changes = { selfService: refused, rotateKey: refused } as unknown as PartnerChanges;
  const callbacks = { write: () => Promise.resolve('audit-1') };
  const lanes = { run: () => Promise.reject(new Refusal(ErrorCodes.CONFLICT, 'the stand-in replays nothing')) } as unknown as ReplayLanes;
  const testEvents = { partners, samplePolicy: readSamplePolicy(defaultSchemasDir()), callbacks, perMinute: 10, graceMs: 0 };
  const forPartner = partnerScopes<PartnerUseCases>(db, { resendsPerHour: 10, testEventsPerMinute: 10 }, (stores) => ({
    resender: new DeliveryResender(stores.resends, undefined as never, lanes, { perHour: 10 }),
    recovery: new DeadLetterRecovery(stores.recoveries, undefined as never, lanes),
    retrier: new DeliveryRetrier(stores.retries, callbacks, 10, () => 60_000),
    failingRetry: new FailingDeliveriesRetry(stores.failing, new DeliveryRetrier(stores.retries, callbacks, 10, () => 60_000)),
    sendTestEvent: (endpointId, status) =>
      sendTestEvent(
        { ...testEvents, ...stores.testEvents, sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
        stores.partnerId,
        endpointId,
        status,
      ),
    places: stores.places,
    notifications: stores.notifications,
  }));
  const app = express();
  app.use(
    PORTAL_BASE,
    authenticatePartner(partners, {} as PortalTokens, {} as ConsoleSessions),
    portalRoutes({
      forPartner,
      partners,
      changes,
      urlGuard: () => Promise.resolve(undefined),
      endpointChangesPerHour: 10,
      signingSecretOverlapHours: 1,
      retryDelaysMs: [],
      samplePolicy: testEvents.samplePolicy,
      keyRotationOverlapHours: 1,
      audit: callbacks as never,
      notificationSettings: { failingAfterMinutes: 5, perHour: 20 },
    }),
  );
  app.use(answerOfError(createLogger({ service: 'test', level: 'silent' })));
  api = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await api?.close();
  await db?.destroy();
  await store?.close();
  await database?.drop();
  await stopStateServer();
});

const operations = Object.entries((deliveryLogOpenApi() as { paths: Record<string, Record<string, unknown>> }).paths)
  .filter(([path]) => path.startsWith(`${PORTAL_BASE}/`))
  .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path.slice(PORTAL_BASE.length)}`));

test('the calls below are every operation the served document gives the partner API', () => {
  expect([...operations].sort()).toEqual(Object.keys(CALLS).sort());
});

test.each(operations)(
  'when a partner calls %s with its key, then every read and write runs as the partner role with that partner set',
  async (operation) => {
    const [method, path] = operation.split(' ') as [string, string];
    const call = CALLS[operation]!;
    seen.length = 0;

    const answer = await fetch(`http://127.0.0.1:${api.port}${PORTAL_BASE}${path.replace(/\{[^}]+\}/g, call.id ?? 'main')}`, {
      method,
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
    });

    expect(answer.status).toBeLessThan(500);
    expect(seen.length > 0).toBe(call.reachesStore);
    expect(writesOf(seen)).toEqual(call.writes ?? []);
    expect(seen.map(({ sql, role, partner: set }) => ({ sql, role, partner: set }))).toEqual(
      seen.map(({ sql }) => ({ sql, role: PARTNER_READER_ROLE, partner: PARTNER_ID })),
    );
  },
);
