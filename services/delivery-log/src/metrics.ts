import { Counter, Histogram, type Registry } from '@hookstream/runtime';

/** The delivery log's own metrics (docs/metrics.md); its consumer lag is on the shared hookstream_consumer_lag_* gauges. */
export function createDeliveryLogMetrics(registry: Registry) {
  return {
    records: new Counter({
      name: 'hookstream_delivery_log_records_total',
      help: 'Records the delivery log projected, by logical topic',
      labelNames: ['topic'],
      registers: [registry],
    }),
    skipped: new Counter({
      name: 'hookstream_delivery_log_skipped_records_total',
      help: 'Records the delivery log could not read (no schema decodes them) and left out, by logical topic',
      labelNames: ['topic'],
      registers: [registry],
    }),
    batchSeconds: new Histogram({
      name: 'hookstream_delivery_log_batch_seconds',
      help: "Time to write one fetched batch's facts to the store, in one transaction",
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    topicResets: new Counter({
      name: 'hookstream_delivery_log_topic_resets_total',
      help: 'Projected topics found created again (a new topic id): their records are projected as a new generation, by logical topic',
      labelNames: ['topic'],
      registers: [registry],
    }),
    batchFailures: new Counter({
      name: 'hookstream_delivery_log_batch_failures_total',
      help: 'Batches the store refused (each is read again after a pause)',
      registers: [registry],
    }),
    notifications: new Counter({
      name: 'hookstream_delivery_log_notifications_total',
      help: 'Operational notification attempts, by type and outcome (delivered; failed: to be tried again; given_up)',
      labelNames: ['type', 'outcome'],
      registers: [registry],
    }),
  };
}

export type DeliveryLogMetrics = ReturnType<typeof createDeliveryLogMetrics>;
