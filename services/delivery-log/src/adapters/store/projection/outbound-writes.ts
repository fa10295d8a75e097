/*
 * The outbound side's facts as rows: deliveries (from their requests, or from an attempt read
 * first), every attempt, dead letters and replays. Each row is keyed by what identifies its fact.
 */
import type { CallbackRequestValue } from '@hookstream/contract';
import type { Insertable, Transaction } from 'kysely';
import type { DeliveriesTable, DeliveryLogTables } from '../tables';
import type { Fact } from '../../../entry/kafka/facts';
import { insertChunked, lastByKey } from './batch-rows';

type Trx = Transaction<DeliveryLogTables>;
type FactOf<K extends Fact['kind']> = Extract<Fact, { kind: K }>;

/**
 * A delivery's request, the sampled trace its record carried (null: none, or a dead letter's copy),
 * the core system's publish time it carried (null: none) and its record's timestamp (absent: a dead letter's copy).
 */
export interface TracedRequest {
  request: CallbackRequestValue;
  traceId?: string | null;
  publishedAt?: number | null;
  writtenAt?: number;
}

/**
 * A delivery's row from its request: what was sent and when it was made. A retry now's request is
 * the delivery's own again (the API built it from this row): it makes the row only where the log has
 * none yet and changes nothing of one it has (its state and attempts come from the outcomes).
 */
export async function writeDeliveries(trx: Trx, requests: TracedRequest[]): Promise<void> {
  const retriedNow = requests.filter(({ request }) => request.trigger === 'RETRY_NOW');
  const rowOf = ({ request: r, traceId, publishedAt }: TracedRequest): Insertable<DeliveriesTable> => ({
    delivery_id: r.delivery_id,
    partner_id: r.partner_id,
    endpoint_id: r.endpoint_id,
    event_id: r.event_id,
    policy_number: r.policy_number,
    policy_version: r.policy_version,
    policy_status: r.policy_status,
    body: r.body,
    created_at: new Date(r.created_at),
    state: 'pending',
    test: r.trigger === 'TEST',
    trace_id: traceId ?? null,
    published_at: publishedAt == null ? null : new Date(publishedAt),
  });
  await insertChunked(lastByKey(retriedNow, ({ request }) => request.delivery_id).map(rowOf), (chunk) =>
    trx
      .insertInto('deliveries')
      .values(chunk)
      .onConflict((oc) => oc.column('delivery_id').doNothing())
      .execute(),
  );
  // When each was asked for (a step of the delivery's timeline): when the API wrote its record.
  const asked = retriedNow.flatMap(({ request: r, writtenAt }) =>
    writtenAt === undefined ? [] : [{ delivery_id: r.delivery_id, partner_id: r.partner_id, asked_at: new Date(writtenAt) }],
  );
  await insertChunked(
    lastByKey(asked, (row) => `${row.delivery_id} ${row.asked_at.getTime()}`),
    (chunk) =>
      trx
        .insertInto('retry_now_requests')
        .values(chunk)
        .onConflict((oc) => oc.columns(['delivery_id', 'asked_at']).doNothing())
        .execute(),
  );
  const rows = lastByKey(
    requests.filter(({ request }) => request.trigger !== 'RETRY_NOW'),
    ({ request }) => request.delivery_id,
  ).map(rowOf);
  await insertChunked(rows, (chunk) =>
    trx
      .insertInto('deliveries')
      .values(chunk)
      .onConflict((oc) =>
        oc.column('delivery_id').doUpdateSet((eb) => ({
          policy_status: eb.ref('excluded.policy_status'),
          body: eb.ref('excluded.body'),
          created_at: eb.ref('excluded.created_at'),
          // The request's trace, not the first attempt's (a row made from an attempt read first); a dead letter's request has none to give.
          trace_id: eb.fn.coalesce('excluded.trace_id', 'deliveries.trace_id'),
          // Likewise the publish time: a replay's record (re-queued by `hookstream dlq replay`) does not carry it.
          published_at: eb.fn.coalesce('excluded.published_at', 'deliveries.published_at'),
        })),
      )
      .execute(),
  );
}

/** Attempts, and the delivery each is of where its request was not read yet (made at its first attempt until it is). */
export async function writeAttempts(trx: Trx, facts: FactOf<'attempt'>[]): Promise<void> {
  const stubs: Insertable<DeliveriesTable>[] = lastByKey(facts, (f) => f.outcome.delivery_id).map(({ outcome: o, traceId }) => ({
    delivery_id: o.delivery_id,
    partner_id: o.partner_id,
    endpoint_id: o.endpoint_id,
    event_id: o.event_id,
    policy_number: o.policy_number,
    policy_version: o.policy_version,
    created_at: new Date(o.recorded_at),
    state: 'pending',
    test: o.trigger === 'TEST',
    trace_id: traceId ?? null,
  }));
  await insertChunked(stubs, (chunk) =>
    trx
      .insertInto('deliveries')
      .values(chunk)
      .onConflict((oc) => oc.column('delivery_id').doNothing())
      .execute(),
  );
  const rows = facts.map(({ generation, partition, offset, outcome: o, traceId }) => ({
    source_generation: generation ?? 0,
    source_partition: partition,
    source_offset: offset,
    delivery_id: o.delivery_id,
    partner_id: o.partner_id,
    endpoint_id: o.endpoint_id,
    attempt: o.attempt,
    outcome: o.outcome,
    http_status: o.http_status,
    error_class: o.error_class,
    latency_ms: o.latency_ms,
    response_excerpt: o.response_excerpt,
    request_headers: headersJson(o.request_headers_json),
    // Records from before the sender wrote the tier: attempt n came from tier n - 1 unless a circuit was open.
    tier: o.tier ?? o.attempt - 1,
    recorded_at: new Date(o.recorded_at),
    trigger: o.trigger ?? null,
    next_attempt_at: o.next_attempt_at == null ? null : new Date(o.next_attempt_at),
    trace_id: traceId ?? null,
  }));
  await insertChunked(rows, (chunk) =>
    trx
      .insertInto('delivery_attempts')
      .values(chunk)
      .onConflict((oc) => oc.columns(['source_generation', 'source_partition', 'source_offset']).doNothing())
      .execute(),
  );
}

export async function writeDeadLetters(trx: Trx, facts: FactOf<'dead-letter'>[]): Promise<void> {
  const rows = facts.map(({ deadLetter: d }) => ({
    source_topic: d.sourceTopic,
    source_generation: d.generation ?? 0,
    source_partition: d.partition,
    source_offset: d.offset,
    subject_id: d.subjectId,
    partner_id: d.partnerId,
    attempts: d.attempts,
    error_class: d.errorClass,
    reason: d.reason,
    dead_lettered_at: new Date(d.deadLetteredAt),
  }));
  await insertChunked(rows, (chunk) =>
    trx
      .insertInto('dead_letters')
      .values(chunk)
      .onConflict((oc) => oc.columns(['source_topic', 'source_generation', 'source_partition', 'source_offset']).doNothing())
      .execute(),
  );
}

export async function writeReplays(trx: Trx, facts: FactOf<'replay'>[]): Promise<void> {
  const rows = facts.map(({ replay: r }) => ({
    replay_id: r.replay_id,
    source_topic: r.source_topic,
    source_partition: r.source_partition,
    source_offset: r.source_offset,
    subject_id: r.delivery_id,
    operator: r.operator,
    actor_type: r.actor_type,
    actor_id: r.actor_id,
    reason: r.reason,
    outcome: r.outcome,
    detail: r.detail,
    replay_count: r.replay_count,
    replayed_at: new Date(r.replayed_at),
  }));
  await insertChunked(rows, (chunk) =>
    trx
      .insertInto('replays')
      .values(chunk)
      .onConflict((oc) => oc.columns(['replay_id', 'source_topic', 'source_partition', 'source_offset']).doNothing())
      .execute(),
  );
  // The run in the audit trail: every record of a run carries its actor, reason, selection and start.
  const runs = lastByKey(facts, (f) => f.replay.replay_id).map(({ replay: r }) => ({
    audit_id: r.replay_id,
    at: new Date(r.started_at),
    actor_type: r.actor_type,
    actor_id: r.actor_id,
    actor_name: r.operator,
    action: 'dead-letters.replay',
    subject_type: 'dead-letters',
    subject_id: r.replay_id,
    reason: r.reason,
    detail: JSON.stringify({ topic: r.source_topic, selection: parsedSelection(r.selector_json) }),
  }));
  await insertChunked(runs, (chunk) =>
    trx
      .insertInto('audit_log')
      .values(chunk)
      .onConflict((oc) => oc.column('audit_id').doNothing())
      .execute(),
  );
}

/**
 * A send's recorded headers as JSON text for the jsonb column, or null: a value that is not a JSON
 * object of strings is left out rather than refused, since a refused batch is read again for ever.
 */
function headersJson(json: string | null): string | null {
  if (json === null) return null;
  try {
    const headers: unknown = JSON.parse(json);
    const isObject = typeof headers === 'object' && headers !== null && !Array.isArray(headers);
    return isObject && Object.values(headers).every((v) => typeof v === 'string') ? json : null;
  } catch {
    return null;
  }
}

/** The run's selection as JSON, or the text itself when an old record's is not JSON. */
function parsedSelection(selectorJson: string): unknown {
  try {
    return JSON.parse(selectorJson) as unknown;
  } catch {
    return selectorJson;
  }
}
