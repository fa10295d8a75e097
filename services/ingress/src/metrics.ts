import { Counter, Histogram, LATENCY_BUCKETS_SECONDS, type Registry } from '@hookstream/runtime';

/** The ingress's metrics (Prometheus naming; partner ids are the only per-tenant label, bounded by onboarding). */
export function createIngressMetrics(registry: Registry) {
  return {
    requests: new Counter({
      name: 'hookstream_ingress_requests_total',
      help: 'Inbound webhook requests by outcome',
      labelNames: ['partner', 'status_code', 'error_code'] as const,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'hookstream_ingress_request_duration_seconds',
      help: 'Time from request start to response',
      labelNames: ['partner', 'status_code'] as const,
      buckets: LATENCY_BUCKETS_SECONDS,
      registers: [registry],
    }),
    replays: new Counter({
      name: 'hookstream_ingress_idempotent_replays_total',
      help: 'Requests answered with a stored response',
      registers: [registry],
    }),
    conflicts: new Counter({
      name: 'hookstream_ingress_idempotency_conflicts_total',
      help: 'request_id reused with a different payload (409)',
      registers: [registry],
    }),
    claimSeconds: new Histogram({
      name: 'hookstream_ingress_claim_duration_seconds',
      help: 'Time to claim a request_id in the ledger (PostgreSQL): its insert, and for a repeated one the read of its row',
      buckets: LATENCY_BUCKETS_SECONDS,
      registers: [registry],
    }),
    produceSeconds: new Histogram({
      name: 'hookstream_ingress_produce_duration_seconds',
      help: 'Time to durably write the partner event (acks=all), which also completes its request_id',
      buckets: LATENCY_BUCKETS_SECONDS,
      registers: [registry],
    }),
    rejectionsRecorded: new Counter({
      name: 'hookstream_ingress_rejections_recorded_total',
      help: "Authenticated partners' 400s and 409s written to inbound-rejections",
      registers: [registry],
    }),
    // By reason only: the partner of a refusal is on hookstream_ingress_requests_total already.
    rejectionsDropped: new Counter({
      name: 'hookstream_ingress_rejections_dropped_total',
      help: "Authenticated partners' 400s and 409s not written to inbound-rejections, by reason",
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    replaysRecorded: new Counter({
      name: 'hookstream_ingress_replays_recorded_total',
      help: "Authenticated partners' webhooks answered from the idempotency ledger and written to inbound-replays",
      registers: [registry],
    }),
    replaysDropped: new Counter({
      name: 'hookstream_ingress_replays_dropped_total',
      help: "Authenticated partners' webhooks answered from the idempotency ledger not written to inbound-replays, by reason",
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
  };
}

export type IngressMetrics = ReturnType<typeof createIngressMetrics>;
