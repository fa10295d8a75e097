/**
 * What the `hookstream dlq` integration tests share: running the CLI on a test's topic prefix,
 * reading its --json answers, and the end offsets that show whether anything was written.
 */
import type { Kafka } from '@hookstream/shared';
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
