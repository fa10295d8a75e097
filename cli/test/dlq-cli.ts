/**
 * What the `hookstream dlq` integration tests share: running the CLI on a test's topic prefix,
 * reading its --json answers, and the end offsets that show whether anything was written.
 */
import { randomUUID } from 'node:crypto';
import { AvroCodec, defaultSchemasDir, topicCatalogue, type Kafka } from '@hookstream/kafka';
import { readTopicToEnd, testInfrastructure } from '../../test/helpers/infrastructure';
import { runCli, type Finished } from '../../test/helpers/processes';

/** Runs `hookstream dlq …` on `prefix`'s topics (the shared stack's broker and registry). */
export function dlq(prefix: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Finished> {
  return runCli(['dlq', ...args], { env: { ...process.env, TOPIC_PREFIX: prefix, ...env }, timeoutMs: 180_000 });
}

/** Runs a `hookstream dlq … --json` that must succeed, and parses its answer. */
export async function dlqJson<T>(prefix: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<T> {
  const result = await dlq(prefix, [...args, '--json'], env);
  if (result.code !== 0) throw new Error(`hookstream dlq ${args.join(' ')} exited ${result.code}\n${result.stdout}\n${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** A dead letter as `dlq list --json` prints it. */
export interface ListedLetter {
  topic: string;
  partition: number;
  offset: string;
  dead_lettered_at: string;
  partner_id: string | null;
  policy_number: string | null;
  policy_status: string | null;
  policy_version: number | null;
  event_id: string | null;
  delivery_id: string | null;
  attempts: number | null;
  last_http_status: number | null;
  error_class: string | null;
  replay_count: number;
  undecodable: string | null;
  replayed: boolean;
}

export interface Listing {
  selected: number;
  not_replayed: number;
  undecodable: number;
  dead_letters: ListedLetter[];
}

/** What `dlq replay --json` prints. */
export interface ReplayAnswer {
  replay_id: string | null;
  dry_run: boolean;
  counts: Record<'replayed' | 'skipped-superseded' | 'skipped-already-replayed' | 'skipped-replay-limit' | 'failed', number>;
  decisions: Array<{ outcome: string; detail: string; delivery_id: string | null; event_id: string | null; replay_count: number }>;
}

/** Every partition's end offset of each topic, summed per topic: equal before and after means nothing was written. */
export async function endOffsets(kafka: Kafka, topics: string[]): Promise<Record<string, number>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const ends: Record<string, number> = {};
    for (const topic of topics) ends[topic] = (await admin.fetchTopicOffsets(topic)).reduce((sum, p) => sum + Number(p.high), 0);
    return ends;
  } finally {
    await admin.disconnect();
  }
}

/**
 * Writes `count` callback dead letters of `partnerId` straight to `prefix`'s callback-dlq, as the
 * sender writes them after a ninth failed attempt (for tests that need no services). Each is its
 * own policy at version 1.
 */
export async function writeCallbackDeadLetters(kafka: Kafka, prefix: string, partnerId: string, count: number): Promise<void> {
  const topic = topicCatalogue({ prefix }).find((t) => t.name === 'callback-dlq')!;
  const codec = new AvroCodec(testInfrastructure().registryUrl, defaultSchemasDir());
  await codec.registerTopics([topic]);
  const messages = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const request = {
        delivery_id: randomUUID(),
        event_id: randomUUID(),
        partner_id: partnerId,
        endpoint_id: 'ep-1',
        policy_number: `POL-${partnerId}-${i}`,
        policy_version: 1,
        policy_status: 'POLICY_ACTIVE',
        body: '{"policy_number":"POL"}',
        created_at: Date.now(),
      };
      const headers = {
        'hookstream-partner-id': partnerId,
        'hookstream-endpoint-id': 'ep-1',
        'hookstream-policy-version': '1',
        'hookstream-delivery-id': request.delivery_id,
        'hookstream-event-id': request.event_id,
        'hookstream-attempts': '9',
        'kafka_dlt-exception-fqcn': 'HTTP_STATUS',
        'kafka_dlt-exception-message': '9 attempts failed; the last: HTTP 500',
      };
      return { key: request.policy_number, value: await codec.encode(topic.topic, request), headers };
    }),
  );
  const producer = kafka.producer();
  await producer.connect();
  try {
    await producer.send({ topic: topic.topic, messages });
  } finally {
    await producer.disconnect();
  }
}

/** The records replays re-queued on `topic` (read committed, whole): each one's replay run and Kafka timestamp. */
export async function readRequeued(kafka: Kafka, topic: string): Promise<Array<{ replayId: string; timestamp: number }>> {
  const requeued: Array<{ replayId: string; timestamp: number }> = [];
  for (const m of await readTopicToEnd(topic, kafka)) {
    const replayId = m.headers?.['hookstream-replay-id']?.toString();
    if (replayId !== undefined) requeued.push({ replayId, timestamp: Number(m.timestamp) });
  }
  return requeued;
}
