/**
 * A PostgreSQL that stops answering without closing anything (hung: a TCP gate in front of a real
 * server that stops forwarding, or a server that accepts and never answers) must not hold a
 * partner's request: the log's pool gives up within its connect and statement timeouts and the API
 * answers 503 with Retry-After, as for any store away; opening the store fails as unavailable.
 */
import net from 'node:net';
import express from 'express';
import { createLogger, isStoreUnavailable, startHttpServer, type RunningHttpServer } from '@hookstream/runtime';
import { openStore, type DeliveryLogStore } from '../../src/adapters/store/database';
import { inPartnerScope } from '../../src/adapters/store/partner-scope';
import { answerOfError } from '../../src/entry/http/api-router';
import { logRoutes } from '../../src/entry/http/log-routes';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../../test/helpers/state-database';
import { TcpGate } from '../../../../test/helpers/tcp-gate';

const logger = createLogger({ service: 'test', level: 'silent' });
/** Short bounds, so a hung store shows within a test's time: a connection within 0.5 s, a statement within 0.5 s (+5 s on the client). */
const BOUNDS = { connectTimeoutMs: 500, statementTimeoutMs: 500 };

let database: StateDatabase;
let gate: TcpGate;
let store: DeliveryLogStore | undefined;
let api: RunningHttpServer | undefined;
let silent: net.Server | undefined;

beforeAll(async () => {
  database = await freshStateDatabase();
  gate = new TcpGate(Number(new URL(database.url).port || 5432));
  await gate.open();
});

afterAll(async () => {
  await api?.close();
  await gate.close();
  await store?.close();
  silent?.close();
  await database.drop();
  await stopStateServer();
});

/** The partner API's reads (the real routes, in the partner's scope) and its error answers, on `db`. */
async function partnerApiOn(db: DeliveryLogStore['db']): Promise<string> {
  const app = express();
  app.use(
    '/api/portal/v1',
    logRoutes({
      partnerOf: () => 'partner-a',
      acrossPartners: false,
      retryDelaysMs: [],
      read: (_req, query) => inPartnerScope(db, 'partner-a', query),
    }),
  );
  app.use(answerOfError(logger));
  api = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${api.port}/api/portal/v1`;
}

test('when the store hangs under a running API, then partner reads answer 503 with Retry-After within the timeouts', async () => {
  const url = new URL(database.url);
  url.port = String(gate.port);
  // One connection: the first read waits on it (the statement bound), the second for it (the connect bound).
  store = await openStore({ url: url.toString(), maxConnections: 1, logger, ...BOUNDS });
  const base = await partnerApiOn(store.db);
  expect((await fetch(`${base}/deliveries`)).status).toBe(200);

  gate.hang();
  const started = Date.now();
  const answers = await Promise.all([fetch(`${base}/deliveries`), fetch(`${base}/webhooks`)]);

  expect(answers.map((a) => [a.status, a.headers.get('retry-after')])).toEqual([
    [503, '2'],
    [503, '2'],
  ]);
  // BEGIN and the ROLLBACK after it each wait out the client's bound (0.5 s + 5 s) at most.
  expect(Date.now() - started).toBeLessThan(15_000);
}, 30_000);

test('when the server accepts and never answers, then opening the store fails as unavailable within the connect timeout', async () => {
  silent = net.createServer(() => {});
  await new Promise<void>((resolve) => silent!.listen(0, '127.0.0.1', resolve));
  const url = new URL(database.url);
  url.port = String((silent.address() as net.AddressInfo).port);
  const started = Date.now();

  const opening = await openStore({ url: url.toString(), logger, ...BOUNDS }).then(
    () => 'opened',
    (error: unknown) => error,
  );

  expect(isStoreUnavailable(opening)).toBe(true);
  expect(Date.now() - started).toBeLessThan(5_000);
}, 30_000);
