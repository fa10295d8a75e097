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
 * (the sender writes a V8 CPU profile there when it stops). The sender's own settings (e.g.
 * SENDER_PARTNER_CONCURRENCY) pass through from the environment.
 * Prints: raw loop req/s, sender deliveries/s, the ratio and the goals; the sender's attempt
 * counters and latency; CPU µs per request of each side (steadier than rates on a shared
 * machine); the offsets the sender's group committed. Exits 0 when a goal is missed, 1 when the
 * run itself fails.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';
import { Pool } from 'undici';
import {
  type AvroCodec,
  CallbackRequestHeaders,
  TopicNames,
  type createKafkaClient,
  javaCompatiblePartitioner,
  routeProcessWarnings,
} from '@hookstream/shared';
import { prepareBenchStack } from './bench-stack';
import { REPO_ROOT, counterSum, cpuSeconds, envNumber, freePort, profileArgs, runBench, trackChild } from './bench-support';

const seconds = envNumber('BENCH_SECONDS', 10);
const records = envNumber('BENCH_RECORDS', 60_000);

const GOAL_PER_SECOND = 5_000;
const GOAL_RATIO = 0.5;
/** The raw loop's client, as the issue measured it: 32 keep-alive connections, 64 requests in flight. */
const RAW_CONNECTIONS = 32;
const RAW_IN_FLIGHT = 64;
/** The sender waits this long without a new request at the receiver before the run is called stalled. */
const STALL_MS = 30_000;
const CALLBACK_PATH = '/callbacks';
/** Lines of the sender's log (warnings and errors only) shown on stderr. */
const SENDER_LOG_LINES = 20;
const auth = { method: 'HMAC_SHA256', api_key: 'bench-api-key', secret: 'bench-hmac-secret' } as const;

// ---------------------------------------------------------------------------------------------
// The receiver (child process): counts requests and the time each one ended.

/** What the bench asks the receiver over IPC. */
type ReceiverCommand = { type: 'reset' } | { type: 'count' } | { type: 'report' };

/** What the receiver answers: requests since the last reset, and when the ranked ones arrived (ms, the receiver's clock). */
interface ReceiverReport {
  type: 'report';
  count: number;
  unsigned: number;
  first: number;
  last: number;
  p5: number;
  p95: number;
}

function runReceiver(): void {
  let times: number[] = [];
  let unsigned = 0;
  const server = createServer((req, res) => {
    if (req.headers['x-signature'] === undefined) unsigned++;
    req.resume();
    req.on('end', () => {
      times.push(performance.now());
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '11' }).end('{"ok":true}');
    });
  });
  server.keepAliveTimeout = 120_000;
  server.listen(0, '127.0.0.1', () => {
    process.send?.({ type: 'listening', url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}` });
  });
  process.on('message', (command: ReceiverCommand) => {
    if (command.type === 'reset') {
      times = [];
      unsigned = 0;
    }
    const at = (fraction: number) => times[Math.min(times.length - 1, Math.floor(fraction * times.length))] ?? 0;
    const report: ReceiverReport = {
      type: 'report',
      count: times.length,
      unsigned,
      first: at(0),
      last: at(1),
      p5: command.type === 'report' ? at(0.05) : 0,
      p95: command.type === 'report' ? at(0.95) : 0,
    };
    process.send?.(report);
  });
  // The bench is gone (however it ended): so is the receiver.
  process.on('disconnect', () => process.exit(0));
}

/** The bench's side of the receiver: one command at a time, each answered by one report. */
class ReceiverHandle {
  private constructor(
    readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static start(): Promise<ReceiverHandle> {
    const child = fork(__filename, ['receiver'], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    trackChild(child);
    return new Promise((resolve, reject) => {
      child.once('message', (m: { url: string }) => resolve(new ReceiverHandle(child, m.url)));
      child.once('exit', (code) => reject(new Error(`the receiver exited with ${code}`)));
    });
  }

  ask(type: ReceiverCommand['type']): Promise<ReceiverReport> {
    return new Promise((resolve) => {
      this.child.once('message', (m: ReceiverReport) => resolve(m));
      this.child.send({ type });
    });
  }
}

// ---------------------------------------------------------------------------------------------
// The bench.

function perRequest(cpu: number | undefined, requests: number): string {
  return cpu === undefined || requests === 0 ? 'n/a' : `${((cpu / requests) * 1e6).toFixed(0)} µs`;
}

/** A contract 2.1 style body of about 2 KB for policy `n`. */
function callbackBody(n: number): string {
  const policy = `POL-${String(n).padStart(8, '0')}`;
  return JSON.stringify({
    policy_number: policy,
    partner_transaction_number: `PTN-${n}`,
    transaction_number: `TRX-${n}`,
    product_code: 'GADGET_PROTECT_12M',
    status: 'POLICY_ACTIVE',
    start_protection_at: '2026-01-08T00:00:00+07:00',
    end_protection_at: '2027-01-07T23:59:59+07:00',
    insured: { name: 'Bench Insured', email: `insured-${n}@example.com`, phone: '+62 811 0000 0000' },
    device: { brand: 'Example', model: 'Phone 15 Pro', imei: String(350_000_000_000_000 + n), purchase_price: 17_999_000 },
    documents: Array.from({ length: 8 }, (_, i) => ({
      type: 'POLICY_CERTIFICATE',
      url: `https://docs.example/policies/${policy}/certificate-${i}.pdf`,
      filename: `${policy}-certificate-${i}.pdf`,
      checksum: 'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    })),
  });
}

/** The raw loop: the same bodies and header shape as the sender's requests, unsigned work left out. */
async function rawLoop(
  url: string,
  bodies: string[],
  receiverPid: number | undefined,
): Promise<{ perSecond: number; failed: number; requests: number; clientCpu: number; receiverCpu: number | undefined }> {
  const pool = new Pool(url, { connections: RAW_CONNECTIONS, pipelining: 1, keepAliveTimeout: 30_000 });
  const headers = () => ({
    'content-type': 'application/json',
    'X-API-Key': auth.api_key,
    'X-Timestamp': new Date().toISOString(),
    'X-Signature': 'n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=',
    'x-hookstream-delivery-id': randomUUID(),
    'x-hookstream-event-id': randomUUID(),
    'x-hookstream-attempt': '1',
  });
  const run = async (durationMs: number) => {
    let done = 0;
    let failed = 0;
    const end = performance.now() + durationMs;
    const started = performance.now();
    const clientCpu = process.cpuUsage();
    const receiverCpu = cpuSeconds(receiverPid);
    await Promise.all(
      Array.from({ length: RAW_IN_FLIGHT }, async () => {
        while (performance.now() < end) {
          const i = done + failed;
          const response = await pool.request({
            path: CALLBACK_PATH,
            method: 'POST',
            headers: headers(),
            body: Buffer.from(bodies[i % bodies.length]!, 'utf8'),
          });
          await response.body.dump();
          if (response.statusCode === 200) done++;
          else failed++;
        }
      }),
    );
    const cpu = process.cpuUsage(clientCpu);
    const receiverNow = cpuSeconds(receiverPid);
    return {
      perSecond: done / ((performance.now() - started) / 1000),
      failed,
      requests: done + failed,
      clientCpu: (cpu.user + cpu.system) / 1e6,
      receiverCpu: receiverNow === undefined || receiverCpu === undefined ? undefined : receiverNow - receiverCpu,
    };
  };
  try {
    await run(1_000); // warm-up: JIT, connections
    return await run(seconds * 1000);
  } finally {
    await pool.close();
  }
}

/**
 * Writes BENCH_RECORDS callback requests for partner `partnerId` as the policy-status-consumer
 * does: keyed by policy number, Avro in the Confluent format, partner, endpoint and version in headers.
 */
async function prefill(
  kafka: ReturnType<typeof createKafkaClient>,
  codec: AvroCodec,
  topic: string,
  partnerId: string,
  bodies: string[],
): Promise<number> {
  const producer = kafka.producer({ createPartitioner: javaCompatiblePartitioner, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const started = performance.now();
  try {
    const chunk = 1_500;
    for (let from = 0; from < records; from += chunk) {
      const messages = await Promise.all(
        Array.from({ length: Math.min(chunk, records - from) }, async (_, j) => {
          const i = from + j;
          const policyNumber = `POL-${String(i).padStart(8, '0')}`;
          const value = await codec.encode(topic, {
            delivery_id: randomUUID(),
            event_id: randomUUID(),
            partner_id: partnerId,
            endpoint_id: 'ep-1',
            policy_number: policyNumber,
            policy_version: 1,
            policy_status: 'POLICY_ACTIVE',
            body: bodies[i % bodies.length]!,
            created_at: Date.now(),
          });
          const headers = {
            [CallbackRequestHeaders.partnerId]: partnerId,
            [CallbackRequestHeaders.endpointId]: 'ep-1',
            [CallbackRequestHeaders.policyVersion]: '1',
          };
          return { key: policyNumber, value, headers };
        }),
      );
      await producer.sendBatch({ topicMessages: [{ topic, messages }], acks: -1 });
    }
  } finally {
    await producer.disconnect();
  }
  return (performance.now() - started) / 1000;
}

async function waitReady(url: string, sender: ChildProcess): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (sender.exitCode !== null) throw new Error(`the callback-sender exited with ${sender.exitCode}`);
    if ((await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the callback-sender is not ready after 60 s');
}

/** A quantile of a histogram (all series summed), interpolated within its bucket as Prometheus does. */
function histogramQuantile(metrics: string, name: string, q: number): number | undefined {
  const buckets = new Map<number, number>();
  for (const m of metrics.matchAll(new RegExp(`^${name}_bucket\\{([^}]*)\\} (\\S+)$`, 'gm'))) {
    const le = /le="([^"]+)"/.exec(m[1] ?? '')?.[1];
    if (le === undefined) continue;
    const bound = le === '+Inf' ? Infinity : Number(le);
    buckets.set(bound, (buckets.get(bound) ?? 0) + Number(m[2]));
  }
  const sorted = [...buckets.entries()].sort((a, b) => a[0] - b[0]);
  const total = sorted[sorted.length - 1]?.[1] ?? 0;
  if (total === 0) return undefined;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const [bound, count] of sorted) {
    if (count >= rank) return bound === Infinity ? lower : lower + ((bound - lower) * (rank - below)) / Math.max(1, count - below);
    lower = bound;
    below = count;
  }
  return undefined;
}

/** Waits until the receiver has `records` requests, or none arrived for STALL_MS. */
async function waitDelivered(receiver: ReceiverHandle, sender: ChildProcess): Promise<number> {
  let count = 0;
  let progressAt = performance.now();
  while (count < records) {
    await new Promise((r) => setTimeout(r, 250));
    if (sender.exitCode !== null) throw new Error(`the callback-sender exited with ${sender.exitCode}`);
    const now = (await receiver.ask('count')).count;
    if (now > count) {
      count = now;
      progressAt = performance.now();
    } else if (performance.now() - progressAt > STALL_MS) {
      break;
    }
  }
  return count;
}

async function main() {
  routeProcessWarnings((w) => console.error(w.message));
  const env = process.env;
  const { prefix, kafka, codec, topic, onboard } = await prepareBenchStack(env, [TopicNames.callbackRequests]);
  const receiver = await ReceiverHandle.start();
  const { partnerId } = await onboard({
    partner_id: 'bench',
    name: 'Bench',
    callback_endpoints: [{ endpoint_id: 'ep-1', url: `${receiver.url}${CALLBACK_PATH}` }],
    outbound_auth: auth,
  });

  const bodies = Array.from({ length: 1_000 }, (_, n) => callbackBody(n));
  const bodyBytes = Buffer.byteLength(bodies[0]!, 'utf8');
  const prefillSeconds = await prefill(kafka, codec, topic(TopicNames.callbackRequests), partnerId, bodies);
  console.log(
    `${records} callback requests (${bodyBytes} B bodies, one policy each, 6 partitions) written in ${prefillSeconds.toFixed(1)} s; Node ${process.versions.node}`,
  );

  // The ceiling, before the sender starts so that the two do not share the CPU.
  const raw = await rawLoop(receiver.url, bodies, receiver.child.pid);
  console.log(
    `${'baseline: raw undici loop'.padEnd(34)} ${raw.perSecond.toFixed(0).padStart(7)} req/s   (Pool of ${RAW_CONNECTIONS} connections, ${RAW_IN_FLIGHT} in flight, ${seconds} s, non-200 ${raw.failed})`,
  );

  await receiver.ask('reset');
  const port = await freePort();
  const sender = spawn(process.execPath, [...profileArgs, path.join(REPO_ROOT, 'services/callback-sender/dist/main.js')], {
    env: { ...env, TOPIC_PREFIX: prefix, HTTP_PORT: String(port), LOG_LEVEL: 'warn', SSRF_ALLOW: '127.0.0.0/8' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  trackChild(sender);
  // At LOG_LEVEL warn whatever the sender logs matters: the first lines are shown, the rest counted.
  let senderLines = 0;
  readline.createInterface({ input: sender.stdout }).on('line', (l) => {
    if (++senderLines <= SENDER_LOG_LINES) console.error(`[callback-sender] ${l.slice(0, 400)}`);
  });
  const senderUrl = `http://127.0.0.1:${port}`;
  try {
    await waitReady(senderUrl, sender);
    const senderCpuAtStart = cpuSeconds(sender.pid);
    const receiverCpuAtStart = cpuSeconds(receiver.child.pid);
    const received = await waitDelivered(receiver, sender);
    const cpuSince = (pid: number | undefined, start: number | undefined) => {
      const now = cpuSeconds(pid);
      return now === undefined || start === undefined ? undefined : now - start;
    };
    const senderCpu = cpuSince(sender.pid, senderCpuAtStart);
    const receiverCpu = cpuSince(receiver.child.pid, receiverCpuAtStart);
    const report = await receiver.ask('report');
    const metrics = await (await fetch(`${senderUrl}/metrics`)).text();
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
    const latency = (q: number) => ms(histogramQuantile(metrics, 'hookstream_callback_attempt_duration_seconds', q));

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
    console.log(
      `goals: ${steady.toFixed(0)}/s ${steady >= GOAL_PER_SECOND ? 'meets' : 'MISSES'} at least ${GOAL_PER_SECOND}/s; ` +
        `${(ratio * 100).toFixed(0)} % ${ratio >= GOAL_RATIO ? 'meets' : 'MISSES'} at least ${GOAL_RATIO * 100} %`,
    );
  } finally {
    sender.kill('SIGTERM');
    // Let the sender stop on its own (it writes its CPU profile then); the exit hook kills what is left.
    await new Promise((resolve) => {
      sender.once('exit', resolve);
      setTimeout(resolve, 15_000).unref();
    });
  }
  // At least once: a record's offset is to be committed once its outcome is written. After a
  // clean stop, the group should have committed every record; the rest would be sent again.
  const groupId = `${prefix}${env.SENDER_CONSUMER_GROUP ?? 'hookstream-callback-sender'}`;
  const committed = await committedRecords(kafka, groupId, topic(TopicNames.callbackRequests));
  console.log(
    `offsets committed by the sender's group after it stopped: ${committed} of ${records} records` +
      (committed < records ? ' (NOT ALL: a restart would deliver the rest again)' : ''),
  );
  if (senderLines > SENDER_LOG_LINES) console.error(`[callback-sender] … ${senderLines - SENDER_LOG_LINES} more log lines not shown`);
}

/** Records before the committed offsets of `groupId` on `topic`, all partitions together. */
async function committedRecords(kafka: ReturnType<typeof createKafkaClient>, groupId: string, topic: string): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return (offsets?.partitions ?? []).reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
  } finally {
    await admin.disconnect();
  }
}

if (process.argv[2] === 'receiver') {
  runReceiver();
} else {
  runBench(main, (seconds + records / 500 + 300) * 1000);
}
