import { Counter, Histogram, LATENCY_BUCKETS_SECONDS, type Registry } from '@hookstream/runtime';

/** The policy-status-consumer's metrics (partner ids are the only per-tenant label, bounded by onboarding). */
export function createPolicyStatusMetrics(registry: Registry) {
  return {
    events: new Counter({
      name: 'hookstream_policy_status_events_total',
      help: 'policy-status events processed, by outcome (callbacks, no_target, dead_lettered)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    callbackRequests: new Counter({
      name: 'hookstream_callback_requests_emitted_total',
      help: 'Callback requests emitted on callback-requests, by partner',
      labelNames: ['partner'] as const,
      registers: [registry],
    }),
    deadLetters: new Counter({
      name: 'hookstream_policy_status_dead_letters_total',
      help: 'policy-status records sent to the dead-letter topic, by error class',
      labelNames: ['error_class'] as const,
      registers: [registry],
    }),
    transactionSeconds: new Histogram({
      name: 'hookstream_policy_status_transaction_duration_seconds',
      help: 'Time to commit one batch: its callback requests, dead letters and consumed offsets in one Kafka transaction',
      buckets: LATENCY_BUCKETS_SECONDS,
      registers: [registry],
    }),
  };
}

export type PolicyStatusMetrics = ReturnType<typeof createPolicyStatusMetrics>;
