/**
 * Benchmark: `hookstream dlq list` over a callback-dlq of BENCH_RECORDS dead letters (default
 * 100,000), against the baseline of reading the same topic raw (a TopicReader in this process,
 * nothing decoded) in the same run.
 *
 *   npm run bench:dlq-list      (starts a throwaway local stack around it)
 *
 * The dead letters are written as the callback-sender writes them: a CallbackRequest (a ~2 KB
 * body, the outbound-send bench's) keyed by policy number, with the sender's retry headers and
 * Spring's dead-letter headers, over 10 partners and 6 partitions. The CLI runs as the operator
 * runs it (a new process, output to a pipe the bench drains), each command BENCH_RUNS times
 * (default 3); the figures are the median wall time.
 *
 * Env: BENCH_RECORDS (default 100000), BENCH_RUNS (default 3).
 * Prints: the fill time; per command the median seconds, dead letters per second and output
 * lines; the raw read's seconds; the CLI's fixed cost (list of an empty dead-letter topic).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { CallbackRequestHeaders } from '@hookstream/contract';
import {
  RetryHeaders,
  DeadLetterIdentityHeaders,
  SpringDltHeaders,
  TopicNames,
  TopicReader,
  type AvroCodec,
  type Kafka,
} from '@hookstream/kafka';
import { createLogger, routeProcessWarnings } from '@hookstream/runtime';
import { callbackBody } from './send/callback-requests';
import { envNumber, REPO_ROOT, runBench } from './support/bench-run';
import { prepareBenchStack } from './support/bench-stack';

const records = envNumber('BENCH_RECORDS', 100_000);
const runs = envNumber('BENCH_RUNS', 3);
const PARTNERS = 10;
const CLI = path.join(REPO_ROOT, 'cli', 'bin', 'hookstream.js');

/** Writes `count` dead letters to `topic` as the sender does after a ninth failed attempt. */
async function fill(kafka: Kafka, codec: AvroCodec, topic: string, requestsTopic: string, count: number): Promise<number> {
  const producer = kafka.producer();
  await producer.connect();
  const started = performance.now();
  const bodies = Array.from({ length: 1_000 }, (_, n) => callbackBody(n));
  const int32 = Buffer.alloc(4);
  const int64 = Buffer.alloc(8);
  try {
    for (let from = 0; from < count; from += 1_000) {
      const messages = await Promise.all(
        Array.from({ length: Math.min(1_000, count - from) }, async (_, j) => {
          const i = from + j;
          const partner = `bench-partner-${i % PARTNERS}`;
          const policy = `POL-${String(i).padStart(8, '0')}`;
          const request = {
            delivery_id: randomUUID(),
            event_id: randomUUID(),
            partner_id: partner,
            endpoint_id: 'ep-1',
            policy_number: policy,
            policy_version: 1,
            policy_status: 'POLICY_ACTIVE',
            body: bodies[i % bodies.length]!,
            created_at: Date.now(),
          };
          const reason = '9 attempts failed; the last: HTTP 503';
          const headers = {
            [CallbackRequestHeaders.partnerId]: partner,
            [CallbackRequestHeaders.endpointId]: 'ep-1',
            [CallbackRequestHeaders.policyVersion]: '1',
            [RetryHeaders.originalTopic]: requestsTopic,
            [RetryHeaders.originalPartition]: '0',
            [RetryHeaders.originalOffset]: String(i),
            [RetryHeaders.attempts]: '9',
            [RetryHeaders.firstFailureAt]: String(Date.now() - 38_000_000),
            [RetryHeaders.lastFailureAt]: String(Date.now()),
            [RetryHeaders.lastError]: reason,
            [DeadLetterIdentityHeaders.eventId]: request.event_id,
            [DeadLetterIdentityHeaders.deliveryId]: request.delivery_id,
            [SpringDltHeaders.originalTopic]: requestsTopic,
            [SpringDltHeaders.originalPartition]: int32,
            [SpringDltHeaders.originalOffset]: int64,
            [SpringDltHeaders.originalTimestamp]: int64,
            [SpringDltHeaders.exceptionFqcn]: 'HTTP_STATUS',
            [SpringDltHeaders.exceptionMessage]: reason,
          };
          return { key: policy, value: await codec.encode(topic, request), headers };
        }),
      );
      await producer.sendBatch({ topicMessages: [{ topic, messages }] });
    }
  } finally {
    await producer.disconnect();
  }
  return (performance.now() - started) / 1000;
}

/** Runs the CLI with `args` on `prefix`; resolves with its wall seconds and output lines (it must exit 0). */
function timeCli(prefix: string, args: string[]): Promise<{ seconds: number; lines: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, TOPIC_PREFIX: prefix },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let lines = 0;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      for (const byte of chunk) if (byte === 10) lines++;
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`hookstream ${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve({ seconds: (performance.now() - started) / 1000, lines });
    });
  });
}

/** The median of `runs` timed runs of the CLI. */
async function medianCli(prefix: string, args: string[]): Promise<{ seconds: number; lines: number }> {
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await timeCli(prefix, args));
  results.sort((a, b) => a.seconds - b.seconds);
  return results[Math.floor(results.length / 2)]!;
}

/** Reads the topic whole, decoding nothing: what any reader of it must spend. */
async function rawRead(kafka: Kafka, topic: string): Promise<{ seconds: number; count: number }> {
  let count = 0;
  const started = performance.now();
  const reader = new TopicReader({
    kafka,
    logger: createLogger({ service: 'bench', level: 'error' }),
    topic,
    apply: (messages) => {
      count += messages.length;
      return Promise.resolve();
    },
  });
  await reader.start();
  await reader.stop();
  return { seconds: (performance.now() - started) / 1000, count };
}

async function main() {
  routeProcessWarnings((w) => console.error(w.message));
  const { prefix, kafka, codec, topic } = await prepareBenchStack(process.env, [TopicNames.callbackDlq]);
  const dlqTopic = topic(TopicNames.callbackDlq);
  const emptyPrefix = (await prepareBenchStack(process.env, [])).prefix;

  const fillSeconds = await fill(kafka, codec, dlqTopic, topic(TopicNames.callbackRequests), records);
  console.log(`filled ${dlqTopic} with ${records} dead letters in ${fillSeconds.toFixed(1)} s (6 partitions, ${PARTNERS} partners)`);

  const raw = await rawRead(kafka, dlqTopic);
  const fixed = await medianCli(emptyPrefix, ['dlq', 'list']);
  console.log(`baseline: raw read of the topic (no decoding, in process)   ${raw.seconds.toFixed(2)} s  (${raw.count} records)`);
  console.log(`baseline: dlq list of an empty topic (the CLI's fixed cost) ${fixed.seconds.toFixed(2)} s`);
  for (const args of [
    ['dlq', 'list'],
    ['dlq', 'list', '--json'],
    ['dlq', 'list', '--partner', 'bench-partner-3'],
    ['dlq', 'list', '--limit', '20'],
  ]) {
    const { seconds, lines } = await medianCli(prefix, args);
    console.log(
      `hookstream ${args.join(' ').padEnd(40)} ${seconds.toFixed(2).padStart(6)} s  ${(records / seconds).toFixed(0).padStart(7)} dead letters/s  ${lines} lines (median of ${runs})`,
    );
  }
}

runBench(main, 60 * 60_000);
