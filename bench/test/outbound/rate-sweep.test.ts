import { costRatio, describeCostRatio, latencyVerdict, sweepTable, systemCpuPer1000, type RateRow } from '../../src/outbound/rate-sweep';

/** A row of a sweep whose measured window was 30 s. */
function row(overrides: Partial<RateRow> = {}): RateRow {
  return {
    offered: 200,
    published: 6000,
    received: 6000,
    latency: { count: 6000, p50: 40, p90: 70, p99: 90, max: 150 },
    windowSeconds: 30,
    cpuSeconds: { consumer: 6, sender: 6, broker: 27 },
    transactions: 3000,
    ...overrides,
  };
}

describe('the outbound-e2e sweep summary', () => {
  it('counts consumer, sender and broker CPU per 1,000 callbacks received', () => {
    expect(systemCpuPer1000(row())).toBeCloseTo(6.5);
    expect(systemCpuPer1000(row({ received: 3000 }))).toBeCloseTo(13);
  });

  it('gives no CPU per delivery when a process was not found or nothing arrived', () => {
    expect(systemCpuPer1000(row({ cpuSeconds: { consumer: 6, sender: 6 } }))).toBeUndefined();
    expect(systemCpuPer1000(row({ received: 0 }))).toBeUndefined();
  });

  it('meets goal 1 only with every callback received and p99 within 100 ms', () => {
    expect(latencyVerdict(row())).toBe('meets');
    expect(latencyVerdict(row({ latency: { count: 6000, p50: 40, p90: 70, p99: 100.1, max: 150 } }))).toBe('MISSES');
    expect(latencyVerdict(row({ received: 5998 }))).toBe('MISSES (2 missing)');
  });

  it("divides goal 2's CPU per delivery at 200/s by that at 1,000/s, whatever the order measured", () => {
    const high = row({ offered: 1000, published: 30000, received: 30000, cpuSeconds: { consumer: 9, sender: 9, broker: 21 } });
    const rows = [high, row({ offered: 20, published: 600, received: 600 }), row()];
    expect(costRatio(rows)).toBeCloseTo(6.5 / 1.3);
    expect(describeCostRatio(rows)).toBe('goal 2: system CPU per delivery at 200/s ÷ at 1,000/s: 5.00× MISSES (goal ≤ 2×)');
    expect(describeCostRatio([row(), { ...high, cpuSeconds: { consumer: 30, sender: 30, broker: 60 } }])).toContain('1.63× meets');
  });

  it('has no goal 2 line unless both rates were measured', () => {
    expect(describeCostRatio([row()])).toBeUndefined();
    expect(describeCostRatio([row({ offered: 1000 })])).toBeUndefined();
  });

  it('prints one row per rate: delivered of published, latency, the verdict, CPU in % of a core, cost and transactions', () => {
    const lines = sweepTable([row(), row({ offered: 1000, cpuSeconds: {} })]).split('\n');
    expect(lines).toHaveLength(4);
    const cells = (line: string) =>
      line
        .split('|')
        .map((cell) => cell.trim())
        .slice(1, -1);
    expect(cells(lines[0]!)).toEqual([
      'offered',
      'delivered',
      'p50',
      'p99',
      'max',
      'p99 ≤ 100 ms',
      'consumer',
      'sender',
      'broker',
      'system CPU per 1,000',
      'transactions',
      'events per transaction',
    ]);
    expect(cells(lines[2]!)).toEqual([
      '200/s',
      '6,000 of 6,000',
      '40.0 ms',
      '90.0 ms',
      '150.0 ms',
      'meets',
      '20 %',
      '20 %',
      '90 %',
      '6.50 s',
      '3,000',
      '2.0',
    ]);
    expect(cells(lines[3]!).slice(6, 10)).toEqual(['n/a', 'n/a', 'n/a', 'n/a']);
  });
});
