import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';

export { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * A metrics registry for one service, with Node's default process metrics.
 * One registry per service instance (not prom-client's global one), so tests can
 * run several services in one process without metric name clashes.
 */
export function createMetricsRegistry(settings: { service: string; instance?: string }): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service: settings.service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Latency buckets in seconds, from 1 ms to 30 s: HTTP handling, produce, delivery. */
export const LATENCY_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * `hookstream_service_ready`: 1 while the service's readiness checks pass (/readyz would answer
 * 200), 0 otherwise. The checks run at each scrape, so the gauge is as current as /readyz itself.
 */
export function serviceReadyGauge(registry: Registry, isReady: () => Promise<boolean>): Gauge {
  return new Gauge({
    name: 'hookstream_service_ready',
    help: 'Whether the service is ready to work: 1 while /readyz answers 200, else 0',
    registers: [registry],
    async collect() {
      this.set((await isReady()) ? 1 : 0);
    },
  });
}
