import { startInMemoryTracing, type InMemoryTracing } from '../../../test/helpers/in-memory-tracing';
import { inSpan } from '@hookstream/runtime';
import { inBatchSpan, inRecordSpan, sampledTraceIdOf, withTraceContextOf, withTraceHeaders } from '../src/record-trace';
import type { KafkaMessage } from '../src/types';

const traceparent = (trace: string, span: string) => `00-${trace.repeat(32 / trace.length)}-${span.repeat(16 / span.length)}-01`;
const message = (offset: number, headers?: KafkaMessage['headers']): KafkaMessage => ({
  key: null,
  value: Buffer.from('v'),
  timestamp: '0',
  offset: String(offset),
  ...(headers ? { headers } : {}),
});

describe('trace context in Kafka records', () => {
  let tracing: InMemoryTracing;
  beforeEach(() => (tracing = startInMemoryTracing()));
  afterEach(() => tracing.stop());

  test('when a record is written inside a span, then it carries that span as traceparent, beside its own headers', async () => {
    const written = await inSpan('writer', {}, async () => withTraceHeaders({ 'x-partner-id': 'p1' }));
    const span = tracing.spans()[0]!.spanContext();
    expect(written).toEqual({ 'x-partner-id': 'p1', traceparent: `00-${span.traceId}-${span.spanId}-01` });
  });

  test('when a record already carries a traceparent (stamped where it was made), then the writer keeps it', async () => {
    const stamped = { traceparent: traceparent('a', 'b') };
    expect(await inSpan('writer', {}, async () => withTraceHeaders(stamped))).toBe(stamped);
  });

  test('when no span is active, then the headers are left as they are', () => {
    expect(withTraceHeaders(undefined)).toBeUndefined();
    expect(withTraceHeaders({ a: 'b' })).toEqual({ a: 'b' });
  });

  test('when a record is written again from one read (a replayed dead letter), then it carries the trace context read, which the writer keeps', async () => {
    const read = { traceparent: Buffer.from(traceparent('e', 'f')), tracestate: Buffer.from('v=1'), 'x-retry-count': Buffer.from('9') };
    const again = withTraceContextOf({ 'x-replay-id': 'run-1' }, read);
    expect(again).toEqual({ 'x-replay-id': 'run-1', traceparent: read.traceparent, tracestate: read.tracestate });
    // Inside another trace's span (the operator API's request), the record stays in the one it came from.
    expect(await inSpan('operator request', {}, async () => withTraceHeaders(again))).toBe(again);
  });

  test('when the record read carries no trace context, then the headers are left as they are', () => {
    const headers = { 'x-replay-id': 'run-1' };
    expect(withTraceContextOf(headers, { 'x-retry-count': Buffer.from('9') })).toBe(headers);
    expect(withTraceContextOf(undefined, undefined)).toBeUndefined();
  });

  test("when a record is handled, then its span continues the record's trace and what it became carries that span", async () => {
    const read = { topic: 'policy-status', partition: 3, message: message(7, { traceparent: Buffer.from(traceparent('c', 'd')) }) };
    const outputs = await inRecordSpan(
      read,
      async () => [{ topic: 'out', message: { key: 'k', value: null, headers: { traceparent: 'stale' } } }],
      'policy.fan_out',
    );
    const span = tracing.spans()[0]!;
    expect(span.name).toBe('policy.fan_out');
    expect(span.spanContext().traceId).toBe('c'.repeat(32));
    expect(span.parentSpanContext?.spanId).toBe('d'.repeat(16));
    expect(span.attributes).toMatchObject({ 'messaging.destination.name': 'policy-status', 'messaging.kafka.offset': 7 });
    expect(outputs[0]!.message.headers!.traceparent).toBe(`00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`);
  });

  test("when records are handled together, then the batch's span links to each record's context rather than taking one as parent", async () => {
    const batch = {
      topic: 't',
      partition: 0,
      messages: [message(1, { traceparent: traceparent('1', '2') }), message(2, { traceparent: traceparent('3', '4') }), message(3)],
    };
    await inBatchSpan(batch, async () => undefined);
    const span = tracing.spans()[0]!;
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.links.map((link) => link.context.traceId)).toEqual(['1'.repeat(32), '3'.repeat(32)]);
  });

  test("when a batch holds one record, then its span continues that record's trace", async () => {
    await inBatchSpan({ topic: 't', partition: 0, messages: [message(1, { traceparent: traceparent('5', '6') })] }, async () => undefined);
    expect(tracing.spans()[0]!.spanContext().traceId).toBe('5'.repeat(32));
  });
});

describe('the sampled trace id a record carries (what the delivery log keeps to link a trace)', () => {
  test.each([
    ['a sampled traceparent', { traceparent: `00-${'ab'.repeat(16)}-${'cd'.repeat(8)}-01` }, 'ab'.repeat(16)],
    ['other flags beside sampled', { traceparent: Buffer.from(`00-${'ab'.repeat(16)}-${'cd'.repeat(8)}-03`) }, 'ab'.repeat(16)],
    ['a trace not sampled', { traceparent: `00-${'ab'.repeat(16)}-${'cd'.repeat(8)}-00` }, null],
    ['the all-zero trace id', { traceparent: `00-${'0'.repeat(32)}-${'cd'.repeat(8)}-01` }, null],
    ['upper-case hex', { traceparent: `00-${'AB'.repeat(16)}-${'cd'.repeat(8)}-01` }, null],
    ['a version this reader does not know', { traceparent: `ff-${'ab'.repeat(16)}-${'cd'.repeat(8)}-01` }, null],
    ['no traceparent', { 'x-partner-id': 'p1' }, null],
    ['no headers', undefined, null],
  ])('%s', (_, headers, expected) => {
    expect(sampledTraceIdOf(headers)).toBe(expected);
  });
});
