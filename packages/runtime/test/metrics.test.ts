import { checkReadiness } from '../src/http/ops-routes';
import { createMetricsRegistry, serviceReadyGauge } from '../src/metrics';

describe('hookstream_service_ready', () => {
  test('when the readiness checks pass, then the gauge is 1; when one fails, 0 (asked again at each scrape)', async () => {
    const registry = createMetricsRegistry({ service: 'unit' });
    let ready = true;
    serviceReadyGauge(registry, () => Promise.resolve(ready));

    expect(await registry.metrics()).toContain('hookstream_service_ready{service="unit"} 1');
    ready = false;
    expect(await registry.metrics()).toContain('hookstream_service_ready{service="unit"} 0');
  });
});

describe('checkReadiness (what /readyz answers and the gauge reads)', () => {
  test('when every check passes, then it is ready', async () => {
    const result = await checkReadiness([{ name: 'kafka', check: () => true }]);
    expect(result).toEqual({ ready: true, checks: { kafka: { ok: true } } });
  });

  test('when a check throws, answers false or hangs, then it is not ready and each failure is named', async () => {
    const result = await checkReadiness(
      [
        { name: 'kafka', check: () => Promise.reject(new Error('broker away')) },
        { name: 'ledger', check: () => false },
        { name: 'registry', check: () => new Promise<void>(() => undefined) },
        { name: 'partner-config', check: () => undefined },
      ],
      50,
    );
    expect(result.ready).toBe(false);
    expect(result.checks).toEqual({
      kafka: { ok: false, error: expect.stringContaining('broker away') },
      ledger: { ok: false, error: 'not ready' },
      registry: { ok: false, error: expect.stringContaining('timed out after 50 ms') },
      'partner-config': { ok: true },
    });
  });
});
