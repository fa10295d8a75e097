import { Counter, Gauge, Histogram, type Registry } from '@hookstream/runtime';

/** The document-fetcher's own metrics (partner ids are the only per-tenant label, bounded by onboarding); lag and DLQ gauges come from watchBacklog. */
export function createDocumentFetcherMetrics(registry: Registry) {
  return {
    fetched: new Counter({
      name: 'hookstream_documents_fetched_total',
      help: 'Documents retrieved and stored (their STORED record written), by partner',
      labelNames: ['partner'] as const,
      registers: [registry],
    }),
    bytes: new Counter({
      name: 'hookstream_document_bytes_total',
      help: 'Bytes of the documents retrieved and stored, by partner',
      labelNames: ['partner'] as const,
      registers: [registry],
    }),
    failures: new Counter({
      name: 'hookstream_document_failures_total',
      help: 'Failed retrievals by partner, reason (TIMEOUT, HTTP_STATUS, TOO_LARGE …) and what followed: retried, failed (recorded at once) or dead_lettered',
      labelNames: ['partner', 'reason', 'outcome'] as const,
      registers: [registry],
    }),
    fetchSeconds: new Histogram({
      name: 'hookstream_document_fetch_duration_seconds',
      help: 'Time to retrieve (and, when stored, store) one document, waiting for a partner slot included, by partner and outcome (stored, failed)',
      labelNames: ['partner', 'outcome'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers: [registry],
    }),
    alreadyRecorded: new Counter({
      name: 'hookstream_document_already_recorded_total',
      help: 'Retrievals not made or not recorded because partner-documents already held their record (a record read again)',
      registers: [registry],
    }),
    retryLateness: new Histogram({
      name: 'hookstream_document_retry_lateness_seconds',
      help: 'How long after its due time a document retry was picked up, by tier',
      labelNames: ['tier'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
      registers: [registry],
    }),
    pausedPartitions: new Gauge({
      name: 'hookstream_document_paused_partitions',
      help: 'Document retry-tier partitions paused until their next record is due',
      registers: [registry],
    }),
  };
}

export type DocumentFetcherMetrics = ReturnType<typeof createDocumentFetcherMetrics>;
