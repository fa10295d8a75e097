/*
 * The OpenTelemetry SDK of a process whose tracing is on: loaded by start.ts only then, so that a
 * process with tracing off never loads it (nothing patched, no exporter, no span processor).
 */
import type { IncomingMessage } from 'node:http';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { SamplingSettings, TracingSettings } from './settings';

/** The ops routes, asked every few hundred milliseconds by probes and Prometheus: no trace of their own. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** Starts the SDK for `service`; resolves the returned function once its spans are exported and it is shut down. */
export function startSdk(service: string, settings: Extract<TracingSettings, { enabled: true }>): () => Promise<void> {
  const resource = resourceFromAttributes({ 'service.name': service }).merge(detectResources({ detectors: [envDetector] }));
  const exporter = settings.exporter === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter();
  const provider = new TracerProvider({
    resource,
    sampler: samplerOf(settings.sampling),
    // Reads OTEL_BSP_* for its queue, batch size and delay.
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(provider);
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request: IncomingMessage) => UNTRACED_PATHS.has((request.url ?? '').split('?')[0] ?? ''),
        // A request made outside any trace (a readiness check, a token refresh) starts none.
        requireParentforOutgoingSpans: true,
      }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
      // No span per express layer: it still names the HTTP span by its route ("POST /api/…"). A span
      // for each middleware cost every traced request CPU for nothing a reader of a trace needs (at
      // 100 % sampling, with the connect spans below, the ingress's CPU per webhook fell from 1.87×
      // to 1.59× of tracing off: npm run bench:tracing-ingress, docs/benchmarks.md).
      new ExpressInstrumentation({ ignoreLayersType: Object.values(ExpressLayerType) }),
      // The query's span, not one more for taking a pooled connection before each (the same cost).
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
    ],
  });
  return async () => {
    unregister();
    await provider.shutdown();
  };
}

function samplerOf(sampling: SamplingSettings): Sampler {
  const root =
    sampling.ratio >= 1
      ? new AlwaysOnSampler()
      : sampling.ratio <= 0
        ? new AlwaysOffSampler()
        : new TraceIdRatioBasedSampler(sampling.ratio);
  return sampling.parentBased ? new ParentBasedSampler({ root }) : root;
}
