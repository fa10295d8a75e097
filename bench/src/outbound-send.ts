/**
 * Benchmark: the callback-sender (callback-requests read from Kafka, each signed with
 * HMAC_SHA256 and POSTed, its outcome written to callback-outcomes) against a raw undici loop
 * posting the same bodies with the same header shape to the same receiver, in one run.
 *
 *   npm run bench:outbound-send      (starts a throwaway local stack around it)
 *
 * The receiver is a bare node:http server answering 200 in a child process of its own, so it
 * shares an event loop with neither side. The sender's rate is what the receiver sees between
 * its 5th and 95th percentile of requests (consumer-group join and warm-up left out).
 *
 * Each record is its own policy (the record key) at version 1, so latest-wins ordering supersedes
 * none of them and every record is one delivery.
 *
 * Env: BENCH_SECONDS (raw loop, default 10), BENCH_RECORDS (default 60000), BENCH_PROFILE=<dir>
 * (the sender writes a V8 CPU profile there when it stops; see support/service-process.ts for
 * the other settings of a service the bench starts). The sender's own settings (e.g.
 * SENDER_PARTNER_CONCURRENCY) pass through from the environment.
 * Prints: raw loop req/s, sender deliveries/s, the ratio and the goals; the sender's attempt
 * counters and latency; CPU µs per request of each side (steadier than rates on a shared
 * machine); the offsets the sender's group committed. Exits 0 when a goal is missed, 1 when the
 * run itself fails.
 */
import { TopicNames } from '@hookstream/kafka';
import { routeProcessWarnings } from '@hookstream/runtime';
import { CALLBACK_PATH } from './outbound/outbound-stack';
import { PARTNER_AUTH, callbackBody, committedRecords, prefill } from './send/callback-requests';
import { CountingReceiver } from './send/counting-receiver';
import { RAW_CONNECTIONS, RAW_IN_FLIGHT, rawLoop } from './send/raw-loop';
import { envNumber, runBench } from './support/bench-run';
import { prepareBenchStack } from './support/bench-stack';
import { cpuSeconds } from './support/cpu-usage';
import { bucketQuantile, counterSum, histogramBuckets } from './support/metrics-page';
import { ServiceProcess } from './support/service-process';
import { waitForCount } from './support/wait-for-count';

const seconds = envNumber('BENCH_SECONDS', 10);
const records = envNumber('BENCH_RECORDS', 60_000);

const GOAL_PER_SECOND = 5_000;
const GOAL_RATIO = 0.5;
/** The sender's CPU per delivery at most this many times the raw loop's CPU per request (signed, outcome written, offset committed). */
const GOAL_COST_RATIO = 2.5;
/** The sender waits this long without a new request at the receiver before the run is called stalled. */
const STALL_MS = 30_000;

function perRequest(cpu: number | undefined, requests: number): string {
  return cpu === undefined || requests === 0 ? 'n/a' : `${((cpu / requests) * 1e6).toFixed(0)} µs`;
}

async function main() {
  routeProcessWarnings((w) => console.error(w.message));
  const env = process.env;
  const { prefix, kafka, codec, topic, onboard } = await prepareBenchStack(env, [TopicNames.callbackRequests]);
  const receiver = await CountingReceiver.start();
  const { partnerId } = await onboard({
    partner_id: 'bench',
    name: 'Bench',
    callback_endpoints: [{ endpoint_id: 'ep-1', url: `${receiver.url}${CALLBACK_PATH}` }],
    outbound_auth: PARTNER_AUTH,
  });

  const bodies = Array.from({ length: 1_000 }, (_, n) => callbackBody(n));
  const bodyBytes = Buffer.byteLength(bodies[0]!, 'utf8');
  const prefillSeconds = await prefill(kafka, codec, topic(TopicNames.callbackRequests), partnerId, bodies, records);
  console.log(
    `${records} callback requests (${bodyBytes} B bodies, one policy each, 6 partitions) written in ${prefillSeconds.toFixed(1)} s; Node ${process.versions.node}`,
  );

  // The ceiling, before the sender starts so that the two do not share the CPU.
  const raw = await rawLoop(receiver.url, bodies, receiver.child.pid, seconds);
  console.log(
    `${'baseline: raw undici loop'.padEnd(34)} ${raw.perSecond.toFixed(0).padStart(7)} req/s   (Pool of ${RAW_CONNECTIONS} connections, ${RAW_IN_FLIGHT} in flight, ${seconds} s, non-200 ${raw.failed})`,
  );

  await receiver.ask('reset');
  const sender = await ServiceProcess.start('callback-sender', { ...env, TOPIC_PREFIX: prefix, SSRF_ALLOW: '127.0.0.0/8' });
  try {
    const senderCpuAtStart = cpuSeconds(sender.pid);
    const receiverCpuAtStart = cpuSeconds(receiver.child.pid);
    // Until every record reached the receiver, or none did for STALL_MS.
    const received = await waitForCount(
      async () => (await receiver.ask('count')).count,
      records,
      STALL_MS,
      () => sender.checkAlive(),
    );
    const cpuSince = (pid: number | undefined, start: number | undefined) => {
      const now = cpuSeconds(pid);
      return now === undefined || start === undefined ? undefined : now - start;
    };
    const senderCpu = cpuSince(sender.pid, senderCpuAtStart);
    const receiverCpu = cpuSince(receiver.child.pid, receiverCpuAtStart);
    const report = await receiver.ask('report');
    const metrics = await sender.metrics();
    const delivered = counterSum(metrics, 'hookstream_callback_attempts_total', 'outcome="delivered"');
    const failed = counterSum(metrics, 'hookstream_callback_attempts_total', 'outcome="failed"');
    const superseded = counterSum(metrics, 'hookstream_callback_superseded_total');
    if (received === 0) {
      throw new Error(`no callback reached the receiver in ${STALL_MS / 1000} s (attempts failed: ${failed}; see the sender's log above)`);
    }
    const window = report.p95 - report.p5;
    const steady = window > 0 ? (0.9 * report.count) / (window / 1000) : 0;
    const overall = report.last > report.first ? (report.count - 1) / ((report.last - report.first) / 1000) : 0;
    const ratio = steady / raw.perSecond;
    const ms = (s: number | undefined) => (s === undefined ? 'n/a' : `${(s * 1000).toFixed(1)} ms`);
    const latency = (q: number) => ms(bucketQuantile(histogramBuckets(metrics, 'hookstream_callback_attempt_duration_seconds'), q));

    console.log(
      `${'callback-sender (HMAC_SHA256)'.padEnd(34)} ${steady.toFixed(0).padStart(7)} deliveries/s   (5th to 95th % of requests at the receiver; first to last: ${overall.toFixed(0)}/s)`,
    );
    console.log(
      `received ${report.count} of ${records}${received < records ? ` (STALLED: none for ${STALL_MS / 1000} s)` : ''}, unsigned ${report.unsigned}; ` +
        `sender attempts_total: delivered ${delivered}, failed ${failed}; superseded ${superseded}; attempt latency p50 ${latency(0.5)}, p99 ${latency(0.99)}`,
    );
    console.log(
      `CPU per request: raw client ${perRequest(raw.clientCpu, raw.requests)}, sender ${perRequest(senderCpu, report.count)} ` +
        `(${senderCpu === undefined ? 'n/a' : `${((senderCpu / ((report.last - report.first) / 1000)) * 100).toFixed(0)} % of a core while delivering`}); ` +
        `receiver ${perRequest(raw.receiverCpu, raw.requests)} under the raw loop, ${perRequest(receiverCpu, report.count)} under the sender`,
    );
    console.log(`ratio: ${(ratio * 100).toFixed(0)} % of the raw loop (goal: at least ${GOAL_RATIO * 100} %)`);
    if (senderCpu !== undefined && raw.clientCpu !== undefined && report.count > 0 && raw.requests > 0) {
      const cost = senderCpu / report.count / (raw.clientCpu / raw.requests);
      console.log(
        `goal (cost): sender CPU per delivery ÷ the raw loop's per request: ${perRequest(senderCpu, report.count)} ÷ ` +
          `${perRequest(raw.clientCpu, raw.requests)} = ${cost.toFixed(2)}× ${cost <= GOAL_COST_RATIO ? 'meets' : 'MISSES'} (goal ≤ ${GOAL_COST_RATIO}×)`,
      );
    }
    console.log(
      `goals: ${steady.toFixed(0)}/s ${steady >= GOAL_PER_SECOND ? 'meets' : 'MISSES'} at least ${GOAL_PER_SECOND}/s; ` +
        `${(ratio * 100).toFixed(0)} % ${ratio >= GOAL_RATIO ? 'meets' : 'MISSES'} at least ${GOAL_RATIO * 100} %`,
    );
  } finally {
    await sender.stop();
  }
  // At least once: a record's offset is to be committed once its outcome is written. After a
  // clean stop, the group should have committed every record; the rest would be sent again.
  const groupId = `${prefix}${env.SENDER_CONSUMER_GROUP ?? 'hookstream-callback-sender'}`;
  const committed = await committedRecords(kafka, groupId, topic(TopicNames.callbackRequests));
  console.log(
    `offsets committed by the sender's group after it stopped: ${committed} of ${records} records` +
      (committed < records ? ' (NOT ALL: a restart would deliver the rest again)' : ''),
  );
}

runBench(main, (seconds + records / 500 + 300) * 1000);
