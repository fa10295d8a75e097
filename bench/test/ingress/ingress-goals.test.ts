import { describeCpuGoal, describeThroughputGoal } from '../../src/ingress/ingress-goals';

describe("bench:ingress's goals", () => {
  it("divides the ingress CPU per accepted webhook by the bare route's, meeting the goal up to 1.5×", () => {
    expect(describeCpuGoal({ perSecond: 4000, cpuPerRequestUs: 180 }, { perSecond: 15000, cpuPerRequestUs: 72 })).toBe(
      "goal (cost): ingress CPU per accepted webhook ÷ the bare route's per request: 180 µs ÷ 72 µs = 2.50× MISSES (goal ≤ 1.5×)",
    );
    expect(describeCpuGoal({ perSecond: 4000, cpuPerRequestUs: 108 }, { perSecond: 15000, cpuPerRequestUs: 72 })).toContain(
      '= 1.50× meets',
    );
  });

  it('says n/a when either CPU is unknown', () => {
    expect(describeCpuGoal({ perSecond: 4000, cpuPerRequestUs: undefined }, { perSecond: 15000, cpuPerRequestUs: 72 })).toContain(
      'n/a (CPU not known)',
    );
  });

  it("divides the ingress throughput by the durable floor's, meeting the goal from 60 %", () => {
    expect(describeThroughputGoal({ perSecond: 4000, cpuPerRequestUs: 180 }, { perSecond: 8000, cpuPerRequestUs: 90 })).toBe(
      'goal (throughput): ingress ÷ durable floor: 4,000 req/s ÷ 8,000 req/s = 50 % MISSES (goal ≥ 60 %)',
    );
    expect(describeThroughputGoal({ perSecond: 4800, cpuPerRequestUs: 180 }, { perSecond: 8000, cpuPerRequestUs: 90 })).toContain(
      '= 60 % meets',
    );
    expect(describeThroughputGoal({ perSecond: 4800, cpuPerRequestUs: 180 }, { perSecond: 0, cpuPerRequestUs: undefined })).toContain(
      'n/a',
    );
  });
});
