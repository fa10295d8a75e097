/*
 * W3C trace context across Kafka (docs/tracing.md): every record written carries its writer's
 * `traceparent` (and `tracestate`) in its headers (HookstreamProducer, the one place records are
 * written), and every record read is handled in a span that continues it (GroupMember, the one
 * place records are read). With tracing off these are OpenTelemetry's no-ops.
 */
import { type Attributes, extractTraceContext, injectTraceContext, inSpan, linkTo, SpanKind, TRACEPARENT } from '@hookstream/runtime';
import { headerText } from './retry-tiers/retry-headers';
import type { IHeaders, KafkaMessage, Message } from './types';

/** A record to write (a GroupMember's OutputRecord; its own type here, for member-transactions.ts imports the client, which imports this file). */
interface OutputRecord {
  topic: string;
  message: Message;
}

/** One record read, and where from (a GroupMember's ConsumedRecord). */
interface ReadRecord {
  topic: string;
  partition: number;
  message: KafkaMessage;
}

/**
 * A record's headers as written: with the active span's trace context, unless the record carries
 * one already (one stamped where it was made, by {@link inRecordSpan}, for a write that happens
 * later in a member's transaction; a dead letter replayed as it was).
 */
export function withTraceHeaders(headers: IHeaders | undefined): IHeaders | undefined {
  if (headers?.[TRACEPARENT] !== undefined) return headers;
  const traced: IHeaders = { ...headers };
  injectTraceContext(traced);
  return traced[TRACEPARENT] === undefined ? headers : traced;
}

/** The W3C trace-context headers: the trace a record belongs to, and vendors' state along it. */
const TRACE_CONTEXT_HEADERS = [TRACEPARENT, 'tracestate'];

/**
 * `headers` with the trace context `source` carries (its traceparent and tracestate, as written):
 * for a record written again from one read, as a replayed dead letter is, so that what it becomes
 * stays in the trace it came from ({@link withTraceHeaders} then keeps it). Unchanged when
 * `source` carries none (its writer traced nothing).
 */
export function withTraceContextOf(headers: IHeaders | undefined, source: IHeaders | undefined): IHeaders | undefined {
  if (source?.[TRACEPARENT] === undefined) return headers;
  const carried = TRACE_CONTEXT_HEADERS.flatMap((name) => (source[name] === undefined ? [] : [[name, source[name]] as const]));
  return { ...headers, ...Object.fromEntries(carried) };
}

/**
 * Handles one record in a CONSUMER span (`name`, default `process <topic>`) whose parent is the
 * trace context the record carries, so the trace goes on across the topic; what it becomes is
 * stamped with that span's context, since it is written later, in a transaction of the member.
 */
export function inRecordSpan(
  record: ReadRecord,
  handle: () => Promise<OutputRecord[]>,
  name = `process ${record.topic}`,
): Promise<OutputRecord[]> {
  return inSpan(
    name,
    { kind: SpanKind.CONSUMER, parent: extractTraceContext(record.message.headers), attributes: recordAttributes(record) },
    async () => {
      const outputs = await handle();
      return outputs.map((output) => {
        const headers: IHeaders = { ...output.message.headers };
        injectTraceContext(headers);
        return { ...output, message: { ...output.message, headers } };
      });
    },
  );
}

/**
 * Handles records read together (a batch of one partition) in one CONSUMER span linked to each
 * record's own trace context, rather than continuing one of them as if it were the batch's parent.
 * A batch of one record continues that record's trace: then there is no other to choose from.
 */
export function inBatchSpan<T>(
  batch: { topic: string; partition: number; messages: readonly KafkaMessage[] },
  handle: () => Promise<T>,
): Promise<T> {
  const only = batch.messages.length === 1 ? batch.messages[0] : undefined;
  const links = only
    ? []
    : batch.messages.flatMap((message) => {
        const link = linkTo(extractTraceContext(message.headers), { 'messaging.kafka.offset': Number(message.offset) });
        return link ? [link] : [];
      });
  return inSpan(
    `process ${batch.topic}`,
    {
      kind: SpanKind.CONSUMER,
      // Not the poll loop's context: a batch's span belongs to no other trace than its records'.
      parent: extractTraceContext(only?.headers),
      links,
      attributes: {
        'messaging.system': 'kafka',
        'messaging.destination.name': batch.topic,
        'messaging.destination.partition.id': String(batch.partition),
        'messaging.batch.message_count': batch.messages.length,
      },
    },
    handle,
  );
}

/** A traceparent: version 00, a trace id, a parent span id, flags (W3C Trace Context, level 1). */
const TRACEPARENT_FORMAT = /^00-([0-9a-f]{32})-[0-9a-f]{16}-([0-9a-f]{2})$/;

/**
 * The trace id a record's headers carry when its trace was sampled (so a trace store may hold it),
 * else null: no header, a malformed one, the all-zero id W3C calls invalid, or a trace not sampled.
 */
export function sampledTraceIdOf(headers: IHeaders | undefined): string | null {
  const found = TRACEPARENT_FORMAT.exec(headerText(headers, TRACEPARENT)?.trim() ?? '');
  if (!found || /^0+$/.test(found[1]!)) return null;
  // Bit 0 of the flags: sampled.
  return (parseInt(found[2]!, 16) & 1) === 1 ? found[1]! : null;
}

function recordAttributes({ topic, partition, message }: ReadRecord): Attributes {
  return {
    'messaging.system': 'kafka',
    'messaging.destination.name': topic,
    'messaging.destination.partition.id': String(partition),
    'messaging.kafka.offset': Number(message.offset),
  };
}
