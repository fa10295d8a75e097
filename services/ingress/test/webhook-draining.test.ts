import express from 'express';
import { Registry, createLogger, startHttpServer, type RunningHttpServer } from '@hookstream/runtime';
import { type PartnerDirectory } from '@hookstream/partners';
import type { AcceptWebhookDeps } from '../src/domain/accept-webhook';
import { WEBHOOK_PATH, createWebhookRoutes } from '../src/entry/http/webhook-routes';
import { createIngressMetrics } from '../src/metrics';

/**
 * The webhook route while the ingress shuts down (SIGTERM): a new webhook is refused with the
 * contract's 503 and Retry-After before anything of it is read, so the partner sends it again to
 * another replica; the requests already in flight are answered (GracefulShutdown, InFlightRequests).
 */
describe('webhook route while draining', () => {
  let server: RunningHttpServer | undefined;
  afterEach(() => server?.close());

  async function ingress(draining: () => boolean) {
    const touched: string[] = [];
    // Stand-ins that note being used: a refused webhook must not reach them.
    const partners = new Proxy({}, { get: (_t, name) => (touched.push(`partners.${String(name)}`), undefined) }) as PartnerDirectory;
    const accept = new Proxy({}, { get: (_t, name) => (touched.push(`accept.${String(name)}`), undefined) }) as AcceptWebhookDeps;
    const routes = createWebhookRoutes({
      basePath: '',
      bodyLimitBytes: 1024,
      writeTimeoutMs: 1000,
      draining,
      partners,
      accept,
      metrics: createIngressMetrics(new Registry()),
      logger: createLogger({ service: 'test', level: 'silent' }),
      openapi: {},
      rejections: { record: (partnerId) => touched.push(`rejections.${partnerId}`) },
      replays: { record: (partnerId) => touched.push(`replays.${partnerId}`) },
    });
    const app = express();
    app.use(routes.router);
    app.use(routes.onError);
    server = await startHttpServer(app, { host: '127.0.0.1', port: 0 });
    return { url: `${server.url}${WEBHOOK_PATH}`, touched };
  }

  test('when draining, then a new webhook gets 503 SERVICE_UNAVAILABLE_ERR with Retry-After, and nothing of it is read', async () => {
    const { url, touched } = await ingress(() => true);
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k' }, body: '{}' });
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await response.json()).toEqual({
      status: 'failed',
      data: null,
      code: 503,
      error_code: 'SERVICE_UNAVAILABLE_ERR',
      message: 'the service is shutting down; retry later',
    });
    expect(touched).toEqual([]);
  });

  test('when not draining, then the request goes on to the next check (here: partners not loaded yet)', async () => {
    const { url, touched } = await ingress(() => false);
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k' }, body: '{}' });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { message: string }).message).toBe('the service is starting; retry later');
    expect(touched).toContain('partners.ready');
  });
});
