import express, { type Express, type Router } from 'express';
import type { Registry } from 'prom-client';
import { withTimeout } from '../async';
import { describeError } from '@hookstream/errors';

/** One thing a service needs before it can take work: Kafka connected, registry reachable, state loaded. */
export interface ReadinessCheck {
  /** Short name shown in the /readyz body, e.g. "kafka". */
  name: string;
  /** Resolves when ready; rejects (or resolves false) when not. Must not hang: it is raced against a timeout. */
  check: () => Promise<boolean | void> | boolean | void;
}

export interface OpsRoutesOptions {
  registry: Registry;
  readiness: readonly ReadinessCheck[];
  /** How long one readiness check may take, in ms. Default 2000. */
  checkTimeoutMs?: number;
}

async function runCheck(check: ReadinessCheck, timeoutMs: number): Promise<{ ok: boolean; error?: string }> {
  try {
    const result = await withTimeout(Promise.resolve().then(check.check), timeoutMs, `timed out after ${timeoutMs} ms`);
    return result === false ? { ok: false, error: 'not ready' } : { ok: true };
  } catch (error) {
    return { ok: false, error: describeError(error) };
  }
}

/** Runs every readiness check (each bounded by `timeoutMs`): what /readyz answers, and `hookstream_service_ready`. */
export async function checkReadiness(
  readiness: readonly ReadinessCheck[],
  timeoutMs = 2000,
): Promise<{ ready: boolean; checks: Record<string, { ok: boolean; error?: string }> }> {
  const results = await Promise.all(readiness.map(async (c) => [c.name, await runCheck(c, timeoutMs)] as const));
  return { ready: results.every(([, r]) => r.ok), checks: Object.fromEntries(results) };
}

/**
 * `/healthz` (the process is alive and serving), `/readyz` (every readiness check passes:
 * 200, else 503 with which check failed) and `/metrics` (Prometheus text format).
 */
export function createOpsRoutes(options: OpsRoutesOptions): Router {
  const router = express.Router();
  const timeoutMs = options.checkTimeoutMs ?? 2000;

  router.get('/healthz', (_req, res) => {
    res.status(200).json({ status: 'alive' });
  });

  router.get('/readyz', async (_req, res) => {
    const { ready, checks } = await checkReadiness(options.readiness, timeoutMs);
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks });
  });

  router.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', options.registry.contentType);
    res.send(await options.registry.metrics());
  });

  return router;
}

/**
 * The ops listener's app of a service with a public API (OPS_PORT): the ops routes and a JSON 404
 * for anything else, none of the API's routes or middleware (no request counted as in flight).
 */
export function createOpsApp(routes: Router, draining: () => boolean): Express {
  const app = express();
  app.disable('x-powered-by');
  // While draining, each answer closes its connection: a prober polling /readyz on a kept-alive
  // connection would otherwise keep it busy, and closing the listener would wait for it until the
  // shutdown timed out (an ingress polled by three clients exited 1 after 10 s).
  app.use((_req, res, next) => {
    if (draining()) res.setHeader('Connection', 'close');
    next();
  });
  app.use(routes);
  app.use((_req, res) => void res.status(404).json({ error: 'not found' }));
  return app;
}
