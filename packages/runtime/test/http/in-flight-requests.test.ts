import express from 'express';
import { request } from 'node:http';
import { InFlightRequests } from '../../src/http/in-flight-requests';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server';

/** An app as the runtime builds one: the tracker first, a slow route answered when the test says, /readyz. */
async function appWithSlowRoute(draining: () => boolean) {
  const tracker = new InFlightRequests(draining);
  const held: Array<() => void> = [];
  const app = express();
  app.use(tracker.middleware);
  app.post('/webhook', (_req, res) => void held.push(() => res.status(200).json({ ok: true })));
  app.get('/readyz', (_req, res) => void held.push(() => res.status(503).json({ status: 'not_ready' })));
  const server = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
  return { tracker, held, server };
}

/** One request on a keep-alive agent; resolves with the status and the Connection header. */
function send(server: RunningHttpServer, method: string, path: string): Promise<{ status: number; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { method, headers: { connection: 'keep-alive' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('InFlightRequests', () => {
  let server: RunningHttpServer | undefined;
  afterEach(async () => {
    server?.server.closeAllConnections();
    await server?.close();
  });

  test('when requests are in flight, then settled() waits for their answers; the ops routes are not counted', async () => {
    const app = await appWithSlowRoute(() => true);
    server = app.server;
    const answers = [send(server, 'POST', '/webhook'), send(server, 'POST', '/webhook'), send(server, 'GET', '/readyz')];
    await until(() => app.held.length === 3);
    expect(app.tracker.size).toBe(2);

    let settled = false;
    const settling = app.tracker.settled(new AbortController().signal).then(() => (settled = true));
    app.held[0]!();
    await answers[0];
    expect(settled).toBe(false);
    app.held[1]!();
    await settling;
    expect(app.tracker.size).toBe(0);
    app.held[2]!();
    await Promise.all(answers);
  });

  test('when the process drains, then each answer closes its connection; before, connections are kept alive', async () => {
    let draining = false;
    const app = await appWithSlowRoute(() => draining);
    server = app.server;
    const before = send(server, 'POST', '/webhook');
    await until(() => app.held.length === 1);
    app.held[0]!();
    expect((await before).connection).toBe('keep-alive');

    draining = true;
    const during = [send(server, 'POST', '/webhook'), send(server, 'GET', '/readyz')];
    await until(() => app.held.length === 3);
    app.held[1]!();
    app.held[2]!();
    expect((await Promise.all(during)).map((a) => a.connection)).toEqual(['close', 'close']);
  });

  test('when the hand-back signal is aborted, then settled() stops waiting although a request is still in flight', async () => {
    const app = await appWithSlowRoute(() => true);
    server = app.server;
    const answer = send(server, 'POST', '/webhook');
    await until(() => app.held.length === 1);
    const handBack = new AbortController();
    const settling = app.tracker.settled(handBack.signal);
    handBack.abort();
    await settling;
    expect(app.tracker.size).toBe(1);
    app.held[0]!();
    await answer;
    expect(app.tracker.size).toBe(0);
  });
});
