/**
 * Benchmark: a partner's recovery (POST /api/portal/v1/dead-letters/recover) with BENCH_DEAD_LETTERS
 * of its callbacks dead-lettered (default 2,000), its dry run and its real run, against the baseline
 * of the same dry run with nothing to resend (the request's fixed cost: authentication, the store's
 * query) in the same run.
 *
 *   npm run bench:recover      (starts a throwaway local stack and a PostgreSQL server)
 *
 * The dead letters are written to callback-dlq as the callback-sender writes them (the dlq-list
 * bench's records, one partner, one endpoint, a policy each), after BENCH_OTHER_REQUESTS (default
 * 20,000) callback requests of other partners (about 1.5 KB each) on callback-requests, as a busy
 * hour leaves them; the delivery log projects them all into its store, and the bench waits until
 * every one is there. A request looks at the oldest
 * MAX_RECOVERED_PER_REQUEST (100) of them; the real run resends those at the replay's pace (10 a
 * second), so its figure is mostly that pace.
 *
 * Env: BENCH_DEAD_LETTERS (default 2000), BENCH_OTHER_REQUESTS (default 20000), BENCH_RUNS (default 3:
 * dry runs, the median shown).
 * Prints: the fill time; the baseline's and the dry run's median seconds; the real run's seconds
 * and what it resent.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client } from 'pg';
import { CallbackRequestHeaders } from '@hookstream/contract';
import { DeadLetterIdentityHeaders, RetryHeaders, TopicNames, type AvroCodec, type Kafka } from '@hookstream/kafka';
import { routeProcessWarnings } from '@hookstream/runtime';
import { startBenchPostgres } from './delivery-log/postgres';
import { envNumber, runBench } from './support/bench-run';
import { prepareBenchStack } from './support/bench-stack';
import { quantile } from './support/samples';
import { ServiceProcess } from './support/service-process';

const deadLetters = envNumber('BENCH_DEAD_LETTERS', 2_000);
const others = envNumber('BENCH_OTHER_REQUESTS', 20_000, 0);
const runs = envNumber('BENCH_RUNS', 3);

interface Recovery {
  until: string;
  selected: number;
  more: boolean;
  resent: unknown[];
  not_resent: Array<{ reason: string }>;
}

/** Writes `count` of `partnerId`'s callbacks to `topic` as the sender dead-letters them after a ninth failed attempt. */
async function fill(kafka: Kafka, codec: AvroCodec, topic: string, requestsTopic: string, partnerId: string, count: number): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  try {
    for (let from = 0; from < count; from += 500) {
      const messages = await Promise.all(
        Array.from({ length: Math.min(500, count - from) }, async (_, j) => {
          const i = from + j;
          const policy = `POL-${String(i).padStart(8, '0')}`;
          const request = {
            delivery_id: randomUUID(),
            event_id: randomUUID(),
            partner_id: partnerId,
            endpoint_id: 'main',
            policy_number: policy,
            policy_version: 1,
            policy_status: 'POLICY_ACTIVE',
            body: JSON.stringify({ policy_number: policy, status: 'POLICY_ACTIVE' }),
            created_at: Date.now(),
          };
          const reason = '9 attempts failed; the last: HTTP 503';
          const headers = {
            [CallbackRequestHeaders.partnerId]: partnerId,
            [CallbackRequestHeaders.endpointId]: 'main',
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
          };
          return { key: policy, value: await codec.encode(topic, request), headers };
        }),
      );
      await producer.sendBatch({ topicMessages: [{ topic, messages }] });
    }
  } finally {
    await producer.disconnect();
  }
}

/** Writes `count` callback requests of other partners to `topic`, as the policy-status consumer does, each a policy of its own. */
async function fillRequests(kafka: Kafka, codec: AvroCodec, topic: string, count: number): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  try {
    for (let from = 0; from < count; from += 1_000) {
      const messages = await Promise.all(
        Array.from({ length: Math.min(1_000, count - from) }, async (_, j) => {
          const partner = `other-${(from + j) % 10}`;
          const policy = `OTHER-${from + j}`;
          const request = {
            ...{ delivery_id: randomUUID(), event_id: randomUUID(), partner_id: partner, endpoint_id: 'main', policy_number: policy },
            ...{ policy_version: 1, policy_status: 'POLICY_ACTIVE', created_at: Date.now() },
            body: JSON.stringify({ policy_number: policy, padding: 'x'.repeat(1_400) }),
          };
          const headers = {
            [CallbackRequestHeaders.partnerId]: partner,
            [CallbackRequestHeaders.endpointId]: 'main',
            [CallbackRequestHeaders.policyVersion]: '1',
          };
          return { key: policy, value: await codec.encode(topic, request), headers };
        }),
      );
      await producer.sendBatch({ topicMessages: [{ topic, messages }] });
    }
  } finally {
    await producer.disconnect();
  }
}

async function main(): Promise<void> {
  routeProcessWarnings((w) => console.error(w.message));
  const postgres = await startBenchPostgres();
  const stack = await prepareBenchStack(process.env, [TopicNames.callbackDlq, TopicNames.callbackRequests]);
  const { partnerId, apiKey } = await stack.onboard({
    partner_id: 'bench-recover',
    name: 'bench-recover',
    callback_endpoints: [{ endpoint_id: 'main', url: 'https://partner.example/callbacks' }],
    outbound_auth: { method: 'API_KEY', api_key: 'k' },
  });
  const service = await ServiceProcess.start('delivery-log', {
    ...process.env,
    TOPIC_PREFIX: stack.prefix,
    DELIVERY_LOG_DATABASE_URL: postgres.url,
    // The bench measures the recovery, not the limits around it.
    DELIVERY_LOG_PARTNER_REQUESTS_PER_SECOND: '100000',
    DELIVERY_LOG_RESENDS_PER_HOUR: '100000',
  });
  const db = new Client({ connectionString: postgres.url });
  await db.connect();
  const recover = async (body: Record<string, unknown>): Promise<{ seconds: number; answer: Recovery }> => {
    const started = performance.now();
    const response = await fetch(`${service.url}/api/portal/v1/dead-letters/recover`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 200) throw new Error(`recover answered ${response.status}: ${await response.text()}`);
    const answer = ((await response.json()) as { data: Recovery }).data;
    return { seconds: (performance.now() - started) / 1000, answer };
  };
  const median = async (body: Record<string, unknown>) => {
    const results = [];
    for (let i = 0; i < runs; i++) results.push(await recover(body));
    return {
      seconds: quantile(
        results.map((r) => r.seconds),
        0.5,
      ),
      answer: results[0]!.answer,
    };
  };
  try {
    const since = new Date(Date.now() - 60_000).toISOString();
    const empty = await median({ since });

    const started = performance.now();
    await fillRequests(stack.kafka, stack.codec, stack.topic(TopicNames.callbackRequests), others);
    await fill(
      stack.kafka,
      stack.codec,
      stack.topic(TopicNames.callbackDlq),
      stack.topic(TopicNames.callbackRequests),
      partnerId,
      deadLetters,
    );
    const waiting = async () =>
      Number(
        (
          await db.query<{ n: string }>("select count(*) as n from deliveries where partner_id = $1 and state = 'dead_lettered'", [
            partnerId,
          ])
        ).rows[0]!.n,
      );
    const projected = async () => Number((await db.query<{ n: string }>('select count(*) as n from deliveries')).rows[0]!.n);
    while ((await waiting()) < deadLetters || (await projected()) < deadLetters + others) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    console.log(
      `${others} other partners' callback requests, then ${deadLetters} callbacks of one partner dead-lettered, all in the delivery log, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    const dry = await median({ since });
    const real = await recover({ since, until: dry.answer.until, dry_run: false, reason: 'bench' });
    const line = (name: string, seconds: number, what: string) =>
      console.log(`  ${name.padEnd(48)} ${seconds.toFixed(3).padStart(7)} s  ${what}`);
    console.log(`\nrecover, ${deadLetters} dead letters waiting (median of ${runs} where said):`);
    line('baseline: dry run with nothing to resend', empty.seconds, `selected ${empty.answer.selected} (median of ${runs})`);
    line(
      'dry run',
      dry.seconds,
      `selected ${dry.answer.selected}, would resend ${dry.answer.resent.length}, more: ${dry.answer.more} (median of ${runs})`,
    );
    line(
      'real run (resends paced at 10 a second)',
      real.seconds,
      `resent ${real.answer.resent.length}, not resent ${real.answer.not_resent.length}`,
    );
  } finally {
    await db.end();
    await service.stop();
    await postgres.stop();
  }
}

runBench(main, 30 * 60_000);
