import { Writable } from 'node:stream';
import { startInMemoryTracing, type InMemoryTracing } from '../../../../test/helpers/in-memory-tracing';
import { createLogger } from '../../src/logging';
import { extractTraceContext, injectTraceContext, inSpan, type TraceCarrier } from '../../src/tracing/spans';

const CORE_TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

describe('spans and trace context', () => {
  let tracing: InMemoryTracing;
  beforeEach(() => (tracing = startInMemoryTracing()));
  afterEach(() => tracing.stop());

  test('when a span continues a carried traceparent, then it joins that trace, and headers injected inside carry its own span', async () => {
    const headers: TraceCarrier = {};
    await inSpan('step', { parent: extractTraceContext({ traceparent: Buffer.from(CORE_TRACEPARENT) }) }, async () => {
      injectTraceContext(headers);
    });
    const [span] = tracing.spans();
    expect(span!.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(span!.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(headers.traceparent).toBe(`00-${span!.spanContext().traceId}-${span!.spanContext().spanId}-01`);
  });

  test('when the work rejects, then the span ends with an error status and the rejection goes on', async () => {
    await expect(inSpan('failing', {}, () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(tracing.spans()[0]).toMatchObject({ name: 'failing', status: { code: 2, message: 'no' } });
  });

  test('when a line is logged inside a span, then it carries trace_id and span_id; outside, neither', async () => {
    const lines: string[] = [];
    const destination = new Writable({ write: (chunk: Buffer, _e, done) => void (lines.push(chunk.toString()), done()) });
    const logger = createLogger({ service: 'test', destination });
    await inSpan('logged', {}, async () => logger.child({ module: 'm' }).info('inside'));
    logger.info('outside');
    const [inside, outside] = lines.map((line) => JSON.parse(line));
    const span = tracing.spans()[0]!.spanContext();
    expect(inside).toMatchObject({ msg: 'inside', trace_id: span.traceId, span_id: span.spanId });
    expect(outside.trace_id).toBeUndefined();
    expect(outside.span_id).toBeUndefined();
  });
});
