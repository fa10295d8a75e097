/*
 * Spans and W3C trace context for Hookstream's code, on OpenTelemetry's API alone: with tracing off
 * (no SDK started, start.ts) every call here is OpenTelemetry's no-op and costs next to nothing.
 */
import {
  type Attributes,
  type Context,
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  type SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';

export { SpanKind, type Attributes, type Context, type Span } from '@opentelemetry/api';

/** Headers as Kafka records carry them (the same shape as the Kafka package's IHeaders). */
export interface TraceCarrier {
  [name: string]: Buffer | string | (Buffer | string)[] | undefined;
}

/** The W3C trace-context header names (https://www.w3.org/TR/trace-context/). */
export const TRACEPARENT = 'traceparent';

const tracer = () => trace.getTracer('hookstream');

const carrierGetter = {
  keys: (carrier: TraceCarrier) => Object.keys(carrier),
  get: (carrier: TraceCarrier, key: string) => {
    const value = carrier[key];
    const first = Array.isArray(value) ? value[0] : value;
    return first === undefined ? undefined : first.toString();
  },
};

/** Writes `parent`'s trace context (traceparent, tracestate) into `headers`, replacing what they carried; nothing when it has no sampled-or-not span (tracing off). */
export function injectTraceContext(headers: TraceCarrier, parent: Context = context.active()): void {
  propagation.inject(parent, headers, { set: (carrier, key, value) => (carrier[key] = value) });
}

/** The trace context `headers` carry (a record's traceparent and tracestate), as a parent for spans; an empty one when they carry none. */
export function extractTraceContext(headers: TraceCarrier | undefined): Context {
  return headers ? propagation.extract(ROOT_CONTEXT, headers, carrierGetter) : ROOT_CONTEXT;
}

/** A link to the span `parent` holds, or none (no span there, or tracing off). */
export function linkTo(parent: Context, attributes?: Attributes): Link | undefined {
  const spanContext = trace.getSpanContext(parent);
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return undefined;
  return attributes ? { context: spanContext, attributes } : { context: spanContext };
}

export interface SpanOptions {
  attributes?: Attributes;
  kind?: SpanKind;
  /** The parent; default: the active span. */
  parent?: Context;
  links?: Link[];
}

/**
 * Runs `work` in a new active span named `name` (a domain name: `webhook.accept`, `callback.attempt`),
 * which ends when it settles; a rejection is recorded on it (its message only) as an error.
 */
export function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const { parent, ...spanOptions } = options;
  return tracer().startActiveSpan(name, spanOptions, parent ?? context.active(), async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The active span's ids for a log line, `{ trace_id, span_id }`; empty outside a span (or with tracing off). */
export function activeTraceFields(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !trace.isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}
