import { Agent, request } from 'node:http';
import { Registry } from 'prom-client';
import { createOpsApp, createOpsRoutes } from '../../src/http/ops-routes';
import { startHttpServer, type RunningHttpServer } from '../../src/http/server';

/** One request on `agent` (kept alive); resolves with the status, the Connection header and the body. */
function get(
  agent: Agent,
  server: RunningHttpServer,
  path: string,
): Promise<{ status: number; connection: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { agent }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the ops listener of a service with a public API', () => {
  let server: RunningHttpServer | undefined;
  const agent = new Agent({ keepAlive: true });
  afterEach(async () => {
    server?.server.closeAllConnections();
    await server?.close();
  });
  afterAll(() => agent.destroy());

  async function opsListener(draining: () => boolean): Promise<RunningHttpServer> {
    const registry = new Registry();
    registry.setDefaultLabels({ service: 'test' });
    const routes = createOpsRoutes({ registry, readiness: [{ name: 'kafka', check: () => true }] });
    server = await startHttpServer(createOpsApp(routes, draining), { host: '127.0.0.1', port: 0 });
    return server;
  }

  test('when asked for the ops routes, then it answers them; when asked for anything else, then a JSON 404', async () => {
    const ops = await opsListener(() => false);

    expect((await get(agent, ops, '/healthz')).status).toBe(200);
    expect(await get(agent, ops, '/readyz')).toMatchObject({
      status: 200,
      body: JSON.stringify({ status: 'ready', checks: { kafka: { ok: true } } }),
    });
    expect((await get(agent, ops, '/metrics')).status).toBe(200);
    expect(await get(agent, ops, '/api/integration/partner/webhook')).toMatchObject({ status: 404, body: '{"error":"not found"}' });
  });

  test('when the service drains, then each answer closes its connection, so that a prober polling on a kept-alive one cannot hold up closing', async () => {
    let draining = false;
    const ops = await opsListener(() => draining);

    expect((await get(agent, ops, '/healthz')).connection).toBe('keep-alive');
    draining = true;
    expect((await get(agent, ops, '/readyz')).connection).toBe('close');
  });
});
