import { Counter, Gauge, Histogram, LATENCY_BUCKETS_SECONDS, type Registry } from '@hookstream/runtime';
import type { BreakerState } from './domain/circuit-breaker';

/** The value of hookstream_callback_circuit_state for each state of a partner's circuit. */
export const BREAKER_GAUGE: Record<BreakerState, number> = { closed: 0, half_open: 1, open: 2 };

/** The callback-sender's metrics (partner ids are the only per-tenant label, bounded by onboarding). */
export function createCallbackSenderMetrics(registry: Registry) {
  let retryOverdueSeconds: () => ReadonlyMap<number, number> = () => new Map();
  return {
    attempts: new Counter({
      name: 'hookstream_callback_attempts_total',
      help: 'Callback attempts by partner and outcome (delivered: HTTP 200; failed: anything else)',
      labelNames: ['partner', 'outcome'] as const,
      registers: [registry],
    }),
    attemptSeconds: new Histogram({
      name: 'hookstream_callback_attempt_duration_seconds',
      help: 'Time from sending a callback to its response or failure',
      labelNames: ['partner'] as const,
      buckets: LATENCY_BUCKETS_SECONDS,
      registers: [registry],
    }),
    inFlight: new Gauge({
      name: 'hookstream_callback_in_flight',
      help: 'Callback deliveries in flight',
      labelNames: ['partner'] as const,
      registers: [registry],
    }),
    retries: new Counter({
      name: 'hookstream_callback_retries_total',
      help: 'Failed attempts sent to a retry tier, by tier',
      labelNames: ['tier'] as const,
      registers: [registry],
    }),
    retryLateness: new Histogram({
      name: 'hookstream_callback_retry_lateness_seconds',
      help: 'How long after its due time a retry was picked up, by tier',
      labelNames: ['tier'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    pausedPartitions: new Gauge({
      name: 'hookstream_callback_paused_partitions',
      help: 'Retry-tier partitions paused until their next record is due',
      registers: [registry],
    }),
    superseded: new Counter({
      name: 'hookstream_callback_superseded_total',
      help: 'Callbacks not sent because a newer version of the policy was emitted for the endpoint (latest-wins)',
      labelNames: ['partner'] as const,
      registers: [registry],
    }),
    breakerState: new Gauge({
      name: 'hookstream_callback_circuit_state',
      help: "A partner's circuit breaker: 0 closed, 1 half open, 2 open",
      labelNames: ['partner'] as const,
      registers: [registry],
    }),
    deadLetters: new Counter({
      name: 'hookstream_callback_dead_letters_total',
      help: 'Callbacks sent to the dead-letter topic, by partner and failure class',
      labelNames: ['partner', 'error_class'] as const,
      registers: [registry],
    }),
    retryOverdue: new Gauge({
      name: 'hookstream_callback_retry_overdue_seconds',
      help: 'How long the earliest record held in a retry tier is past its due time; 0 when none is',
      labelNames: ['tier'] as const,
      registers: [registry],
      collect() {
        for (const [tier, seconds] of retryOverdueSeconds()) this.set({ tier: String(tier) }, seconds);
      },
    }),
    /** Where the overdue gauge reads at each scrape, per tier (1-based): the retry tiers' consumer says. */
    readRetryOverdueFrom(source: () => ReadonlyMap<number, number>): void {
      retryOverdueSeconds = source;
    },
  };
}

export type CallbackSenderMetrics = ReturnType<typeof createCallbackSenderMetrics>;
