import { Counter, Gauge, Histogram, LATENCY_BUCKETS_SECONDS, type Registry } from '@hookstream/shared';

/** The callback-sender's metrics (partner ids are the only per-tenant label, bounded by onboarding). */
export function createCallbackSenderMetrics(registry: Registry) {
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
    deadLetters: new Counter({
      name: 'hookstream_callback_dead_letters_total',
      help: 'Callbacks sent to the dead-letter topic, by partner and failure class',
      labelNames: ['partner', 'error_class'] as const,
      registers: [registry],
    }),
  };
}

export type CallbackSenderMetrics = ReturnType<typeof createCallbackSenderMetrics>;
