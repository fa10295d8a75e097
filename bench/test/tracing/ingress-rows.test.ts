import { ingressTracingTable, lastRoundRatios, systemCpuPer1000, type IngressRow } from '../../src/tracing/ingress-rows';

/** A window of 20 s at 1,000 webhooks/s offered, every one accepted. */
function row(overrides: Partial<IngressRow> = {}, p99 = 20): IngressRow {
  return {
    setting: 'off',
    round: 2,
    offered: 20000,
    result: { '2xx': 20000, latency: { p50: 5, p99 } as IngressRow['result']['latency'] },
    seconds: 20,
    cpuSeconds: { ingress: 10, broker: 6, registry: 0.2, postgres: 3.8, jaeger: 0 },
    ...overrides,
  };
}

describe('the ingress tracing bench figures', () => {
  it('counts ingress, broker, registry and PostgreSQL CPU per 1,000 accepted, and not Jaeger', () => {
    expect(systemCpuPer1000(row())).toBeCloseTo(1);
    expect(systemCpuPer1000(row({ cpuSeconds: { ingress: 10, broker: 6, registry: 0.2, postgres: 3.8, jaeger: 5 } }))).toBeCloseTo(1);
  });

  it('gives no system CPU when PostgreSQL was not found or nothing was accepted', () => {
    expect(systemCpuPer1000(row({ cpuSeconds: { ingress: 10, broker: 6, registry: 0.2 } }))).toBeUndefined();
    expect(systemCpuPer1000(row({ result: { '2xx': 0, latency: row().result.latency } }))).toBeUndefined();
  });

  it('shows each process as a share of a core and the ingress per accepted webhook', () => {
    const table = ingressTracingTable([row()]);
    expect(table).toContain('| off     | 2     | 20000 of 20000 | 1000       | 5 ms | 20 ms | 50.0 %  | 500 µs');
    expect(table).toContain('| 19.0 %     | 0.0 %  | 1.00 s');
  });

  it("judges the 10 % setting against the round's tracing off: at most 5 % more CPU and no worse p99", () => {
    const cpu = (ingress: number) => ({ ingress, broker: 6, registry: 0.2, postgres: 3.8, jaeger: 1 });
    const off = row();
    const within = row({ setting: '10 %', cpuSeconds: cpu(11) }, 20);
    const dearer = row({ setting: '10 %', cpuSeconds: cpu(11.1) }, 20);
    const slower = row({ setting: '10 %', cpuSeconds: cpu(10) }, 21);
    expect(lastRoundRatios([off, within], 2)).toBe(
      '10 %: system CPU per webhook 1.05×, ingress CPU per webhook 1.10×, p99 1.00× (20 ms against 20 ms): meets (goal: CPU ≤ 1.05×, p99 no worse)',
    );
    expect(lastRoundRatios([off, dearer], 2)).toContain('MISSES');
    expect(lastRoundRatios([off, slower], 2)).toContain('MISSES');
    expect(lastRoundRatios([row({ round: 1 }), within, row({ setting: '100 %', cpuSeconds: cpu(14) })], 2)).toBe(
      'n/a (round 2 has no row with tracing off)',
    );
  });

  it('says a ratio is not comparable when either window did not keep up with the rate offered', () => {
    const short = row({ setting: '10 %', result: { '2xx': 19000, latency: row().result.latency } });
    expect(lastRoundRatios([row(), short], 2)).toContain('[10 % did not keep up with the rate offered: not comparable]');
    expect(lastRoundRatios([row({ result: { '2xx': 19000, latency: row().result.latency } }), row({ setting: '100 %' })], 2)).toContain(
      '[off did not keep up',
    );
    expect(lastRoundRatios([row(), row({ setting: '10 %', result: { '2xx': 19950, latency: row().result.latency } })], 2)).not.toContain(
      'not comparable',
    );
  });

  it('gives the 100 % ratios without a goal', () => {
    const full = row({ setting: '100 %', cpuSeconds: { ingress: 14, broker: 6, registry: 0.2, postgres: 3.8, jaeger: 4 } }, 30);
    expect(lastRoundRatios([row(), full], 2)).toBe(
      '100 %: system CPU per webhook 1.20×, ingress CPU per webhook 1.40×, p99 1.50× (30 ms against 20 ms)',
    );
  });
});
