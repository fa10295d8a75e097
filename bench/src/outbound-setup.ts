/**
 * What the outbound benchmarks (outbound-e2e, isolation) share: a throwaway set of topics and a
 * partner onboarding step, the policy-status-consumer and callback-sender as child processes, a
 * callback receiver in a child process of its own, a fixed-rate publisher of policy-status
 * events, and the figures (latency percentiles, service metrics, CPU).
 *
 * Latency is measured end to end on one machine clock: each event's policy_number carries the
 * time it was scheduled to be published (epoch ms), and the receiver notes when its callback
 * arrived. Scheduled rather than actual publish time, so a publisher falling behind counts
 * against the figures instead of hiding the delay (no coordinated omission).
 *
 * Run as a script with the argument `receiver` or `tracer`, this file is that child.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';
import {
  type AvroCodec,
  TopicNames,
  createKafkaClient,
  createLogger,
  javaCompatiblePartitioner,
  parsePolicyEventJson,
  sleep,
  type Kafka,
  type Message,
  type PolicyStatusEventValue,
  type Producer,
} from '@hookstream/shared';
import { prepareBenchStack } from './bench-stack';
import { CpuWindow, REPO_ROOT, counterSum, freePort, profileArgs, stackProcesses, trackChild } from './bench-support';

export { counterSum, runBench } from './bench-support';

/** Lines of each service's log (warnings and errors only) shown on stderr; the rest are counted. */
const SERVICE_LOG_LINES = 20;
export const CALLBACK_PATH = '/callbacks';

/** Wall-clock epoch ms with sub-ms resolution, comparable across processes on one machine. */
const epochMs = (): number => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------------------------------------
// Children and the run's life cycle.

/** In a service's env: the pid of the bench that started it (see the end of this file). */
const BENCH_PID = 'HOOKSTREAM_BENCH_PID';
/** BENCH_SERVICE_NODE_ARGS: node flags for the services (e.g. "--trace-gc-nvp"); split on spaces. */
const serviceNodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);

/**
 * One service as a child process (compiled dist/main.js) on a free port, logging at warn. It
 * preloads this file, which stops it should the bench vanish without its exit hook (SIGKILL).
 */
export class ServiceProcess {
  private logLines = 0;

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
    readonly url: string,
  ) {
    const copy = process.env.BENCH_SERVICE_OUTPUT_DIR
      ? createWriteStream(path.join(process.env.BENCH_SERVICE_OUTPUT_DIR, `${name}.log`))
      : undefined;
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      copy?.write(`${line}\n`);
      if (++this.logLines <= SERVICE_LOG_LINES) console.error(`[${name}] ${line.slice(0, 400)}`);
    });
  }

  /** Starts `services/<name>/dist/main.js` and waits until its /readyz answers 200. */
  static async start(name: string, env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [...profileArgs, ...serviceNodeArgs, '--require', __filename, path.join(REPO_ROOT, 'services', name, 'dist', 'main.js')],
      {
        env: { ...env, HTTP_PORT: String(port), LOG_LEVEL: 'warn', [BENCH_PID]: String(process.pid) },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    trackChild(child);
    const service = new ServiceProcess(name, child, `http://127.0.0.1:${port}`);
    for (let i = 0; i < 300; i++) {
      if (child.exitCode !== null) throw new Error(`the ${name} exited with ${child.exitCode}`);
      if ((await fetch(`${service.url}/readyz`).catch(() => undefined))?.status === 200) return service;
      await sleep(200);
    }
    throw new Error(`the ${name} is not ready after 60 s`);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Fails when the service has died. */
  checkAlive(): void {
    if (this.child.exitCode !== null || this.child.signalCode !== null) {
      throw new Error(`the ${this.name} exited (${this.child.exitCode ?? this.child.signalCode})`);
    }
  }

  async metrics(): Promise<string> {
    return (await fetch(`${this.url}/metrics`)).text();
  }

  /** SIGTERM, then up to 15 s to stop on its own (it writes its CPU profile then); the exit hook kills what is left. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await Promise.race([exited, sleep(15_000)]);
    if (this.logLines > SERVICE_LOG_LINES) console.error(`[${this.name}] … ${this.logLines - SERVICE_LOG_LINES} more log lines not shown`);
  }
}

// ---------------------------------------------------------------------------------------------
// Children that note when each policy number arrived somewhere: the callback receiver, and the
// tracer that sees a callback request become readable (committed) on callback-requests.

/** One policy number and when it arrived (epoch ms). */
type Receipt = [policyNumber: string, arrivedAt: number];

type ArrivalCommand = { type: 'take' };
interface ArrivalReport {
  type: 'receipts';
  receipts: Receipt[];
  /** Receiver only: requests the black hole accepted so far (never answered). */
  blackHoled: number;
}

/** The child's side: hands over what it noted since the last command, and exits with the bench. */
function serveReceipts(take: () => ArrivalReport): void {
  process.on('message', (_command: ArrivalCommand) => process.send?.(take()));
  process.on('disconnect', () => process.exit(0));
}

const POLICY_NUMBER = /"policy_number":"([^"]+)"/;

/**
 * The receiver child: a partner answering 200 at once; a black hole that never answers; and one
 * that is a black hole until the epoch ms in its path (`/down-until-<ms>/…`), then answers 200.
 */
function runReceiver(): void {
  let receipts: Receipt[] = [];
  let blackHoled = 0;
  const answer = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const receivedAt = epochMs();
      const policyNumber = POLICY_NUMBER.exec(Buffer.concat(chunks).toString('utf8'))?.[1] ?? '';
      receipts.push([policyNumber, receivedAt]);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '11' }).end('{"ok":true}');
    });
  };
  const answering = createServer(answer);
  answering.keepAliveTimeout = 120_000;
  // Accepts the connection and the request, and never answers: the sender's timeout ends each attempt.
  const blackHole = createServer((req) => {
    blackHoled++;
    req.resume();
  });
  const recovering = createServer((req, res) => {
    const downUntil = Number(DOWN_UNTIL.exec(req.url ?? '')?.[1] ?? 0);
    if (Date.now() < downUntil) req.resume();
    else answer(req, res);
  });
  recovering.keepAliveTimeout = 120_000;
  const listen = (server: Server) =>
    new Promise<string>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`)),
    );
  void Promise.all([listen(answering), listen(blackHole), listen(recovering)]).then(([answeringUrl, blackHoleUrl, recoveringUrl]) =>
    process.send?.({ answeringUrl, blackHoleUrl, recoveringUrl }),
  );
  serveReceipts(() => {
    const report: ArrivalReport = { type: 'receipts', receipts, blackHoled };
    receipts = [];
    return report;
  });
}

const DOWN_UNTIL = /^\/down-until-(\d+)\//;

/**
 * The tracer child: a read_committed consumer of callback-requests noting when each record (its
 * key is the policy number) became readable, i.e. when the policy-status-consumer's transaction
 * holding it committed, give or take a fetch.
 */
async function runCommitTracer(brokers: string, topic: string): Promise<void> {
  const kafka = createKafkaClient({
    brokers: brokers.split(','),
    clientId: 'bench-tracer',
    logger: createLogger({ service: 'bench-tracer', level: 'error' }),
  });
  const consumer = kafka.consumer({ groupId: `bench-tracer-${randomUUID()}`, readUncommitted: false, maxWaitTimeInMs: 100 });
  let receipts: Receipt[] = [];
  consumer.on(consumer.events.GROUP_JOIN, () => process.send?.({ joined: true }));
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    partitionsConsumedConcurrently: 6,
    eachBatch: async ({ batch }) => {
      const at = epochMs();
      for (const message of batch.messages) receipts.push([message.key?.toString('utf8') ?? '', at]);
      return Promise.resolve();
    },
  });
  serveReceipts(() => {
    const report: ArrivalReport = { type: 'receipts', receipts, blackHoled: 0 };
    receipts = [];
    return report;
  });
}

/** The bench's side of a child that notes arrivals: the first arrival of each policy number. */
class ArrivalLog {
  /** First arrival of each policy number (a repeat keeps the first). */
  readonly arrivals = new Map<string, number>();
  /** Distinct arrivals per stream label. */
  readonly arrivedPerLabel = new Map<string, number>();
  /** Arrivals of a policy number seen before (at least once: a repeat carries the same policy number). */
  repeats = 0;
  blackHoled = 0;
  private collecting = Promise.resolve();

  protected constructor(readonly child: ChildProcess) {}

  /** Forks this file as the child `role` and waits for its first message. */
  protected static fork<T>(role: string, args: string[]): Promise<{ child: ChildProcess; hello: T }> {
    const child = fork(__filename, [role, ...args], { execArgv: [], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    trackChild(child);
    return new Promise((resolve, reject) => {
      child.once('message', (hello: T) => resolve({ child, hello }));
      child.once('exit', (code) => reject(new Error(`the ${role} exited with ${code}`)));
    });
  }

  /** Collects what arrived since the last call (calls are served one after another). */
  collect(): Promise<void> {
    this.collecting = this.collecting.then(() => this.take());
    return this.collecting;
  }

  private take(): Promise<void> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) =>
        reject(new Error(`a child of the bench (${this.child.spawnargs.slice(2).join(' ')}) exited with ${code}`));
      if (this.child.exitCode !== null || this.child.signalCode !== null) return onExit(this.child.exitCode);
      const onMessage = (m: ArrivalReport | { joined: true }) => {
        if (!('type' in m)) return; // e.g. the tracer's consumer joining its group again
        this.child.off('message', onMessage);
        this.child.off('exit', onExit);
        for (const [policyNumber, at] of m.receipts) {
          if (this.arrivals.has(policyNumber)) {
            this.repeats++;
            continue;
          }
          this.arrivals.set(policyNumber, at);
          const label = parsePolicyNumber(policyNumber)?.label ?? '';
          this.arrivedPerLabel.set(label, (this.arrivedPerLabel.get(label) ?? 0) + 1);
        }
        this.blackHoled = m.blackHoled;
        resolve();
      };
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
      this.child.send({ type: 'take' } satisfies ArrivalCommand);
    });
  }
}

/** The partner's side, in a child process of its own: callbacks and when they arrived. */
export class CallbackReceiver extends ArrivalLog {
  private constructor(
    child: ChildProcess,
    /** Answers every callback 200 at once. */
    readonly answeringUrl: string,
    /** Accepts callbacks and never answers. */
    readonly blackHoleUrl: string,
    private readonly recoveringUrl: string,
  ) {
    super(child);
  }

  static async start(): Promise<CallbackReceiver> {
    const { child, hello } = await ArrivalLog.fork<{ answeringUrl: string; blackHoleUrl: string; recoveringUrl: string }>('receiver', []);
    return new CallbackReceiver(child, hello.answeringUrl, hello.blackHoleUrl, hello.recoveringUrl);
  }

  /** A base URL that accepts callbacks and never answers until `epochMs`, then answers 200 at once. */
  downUntilUrl(epochMs: number): string {
    return `${this.recoveringUrl}/down-until-${Math.round(epochMs)}`;
  }
}

/** When each callback request became readable on callback-requests (read_committed), from a child process. */
export class CommitTracer extends ArrivalLog {
  static async start(stack: OutboundStack): Promise<CommitTracer> {
    const { child } = await ArrivalLog.fork<{ joined: true }>('tracer', [
      stack.serviceEnv.KAFKA_BROKERS ?? '',
      stack.topic(TopicNames.callbackRequests),
    ]);
    return new CommitTracer(child);
  }
}

// ---------------------------------------------------------------------------------------------
// Topics, partners and the services.

export interface OutboundStack {
  kafka: Kafka;
  codec: AvroCodec;
  /** Real name of a topic, from its logical name. */
  topic: (name: string) => string;
  /** Onboards a partner with one endpoint (HMAC_SHA256 auth), written to partner-config. */
  onboard: (partnerId: string, url: string, timeoutMs?: number) => Promise<void>;
  /** The env the services run with: the local stack's, the topic prefix, loopback allowed. */
  serviceEnv: NodeJS.ProcessEnv;
}

/** Fresh topics under a unique prefix, their schemas registered, and the onboarding step. */
export async function prepareOutboundStack(env: NodeJS.ProcessEnv): Promise<OutboundStack> {
  const { prefix, kafka, codec, topic, onboard } = await prepareBenchStack(env, [TopicNames.policyStatus]);
  return {
    kafka,
    codec,
    topic,
    onboard: async (partnerId, url, timeoutMs = 10_000) => {
      await onboard({
        partner_id: partnerId,
        name: partnerId,
        callback_endpoints: [{ endpoint_id: 'ep-1', url, timeout_ms: timeoutMs }],
        outbound_auth: { method: 'HMAC_SHA256', api_key: `${partnerId}-key`, secret: `${partnerId}-hmac-secret` },
      });
    },
    serviceEnv: { ...env, TOPIC_PREFIX: prefix, SSRF_ALLOW: env.SSRF_ALLOW ?? '127.0.0.0/8' },
  };
}

/** The two outbound services, started side by side. */
export async function startOutboundServices(stack: OutboundStack): Promise<{ consumer: ServiceProcess; sender: ServiceProcess }> {
  const [consumer, sender] = await Promise.all([
    ServiceProcess.start('policy-status-consumer', stack.serviceEnv),
    ServiceProcess.start('callback-sender', stack.serviceEnv),
  ]);
  return { consumer, sender };
}

// ---------------------------------------------------------------------------------------------
// The fixed-rate publisher.

/** Events for one partner at a fixed rate, between two offsets from the publisher's start. */
export interface EventStream {
  /** Also the start of each event's policy number. */
  label: string;
  partnerId: string;
  /** Events per second. */
  rate: number;
  fromMs: number;
  toMs: number;
}

/** What one run of the publisher did. */
export interface PublishReport {
  /** Epoch ms the schedule started at: stream events are due at startedAt + fromMs + i / rate. */
  startedAt: number;
  /** Events published per stream label. */
  published: Map<string, number>;
  /** Per send: how late it started after its oldest event was due, and how long until acks=all (ms). */
  lateness: number[];
  sendMs: number[];
  sends: number;
  /** Epoch ms the last send was acknowledged. */
  endedAt: number;
}

/** The policy number of a stream's event `seq`, carrying the time it was due (epoch ms, 3 decimals). */
const policyNumberOf = (label: string, seq: number, dueAt: number) => `${label}-${seq}-${dueAt.toFixed(3)}`;

/** When the event of a policy number was due to be published (epoch ms), and its stream label. */
function parsePolicyNumber(policyNumber: string): { label: string; dueAt: number } | undefined {
  const m = /^(.+)-(\d+)-(\d+\.\d+)$/.exec(policyNumber);
  return m ? { label: m[1]!, dueAt: Number(m[3]) } : undefined;
}

/**
 * Publishes policy-status events at a fixed rate without drift: every TICK_MS it sends all
 * events due by now (the count follows the clock, not the ticks), in one `producer.send` on an
 * idempotent acks=all producer; a tick that finds a send in flight leaves its events to the
 * next send. Each event is a policy of its own at version 1 (latest-wins supersedes none).
 */
export class FixedRatePublisher {
  static readonly TICK_MS = 2;
  private producer: Producer | undefined;
  private template: PolicyStatusEventValue | undefined;

  constructor(private readonly stack: OutboundStack) {}

  async connect(): Promise<void> {
    this.producer = this.stack.kafka.producer({ createPartitioner: javaCompatiblePartitioner, idempotent: true, maxInFlightRequests: 1 });
    await this.producer.connect();
    // The integrator's JSON form, parsed once; every event is this with its own ids.
    this.template = parsePolicyEventJson({
      partner_id: 'template',
      version: 1,
      policy: {
        policy_number: 'template',
        partner_transaction_number: 'PTN-BENCH',
        transaction_number: 'TRX-BENCH',
        product_code: 'GADGET_PROTECT_12M',
        status: 'POLICY_ACTIVE',
        start_protection_at: '2026-01-08T00:00:00+07:00',
        end_protection_at: '2027-01-07T23:59:59+07:00',
        currency_code: 'IDR',
        policy_holder: { full_name: 'Bench Holder', email: 'holder@example.com', phone_number: '+62811000000' },
        documents: [{ type: 'POLICY_CERTIFICATE', filename: 'certificate.pdf', url: 'https://docs.example/certificate.pdf' }],
      },
    });
  }

  async disconnect(): Promise<void> {
    await this.producer?.disconnect();
  }

  /**
   * Publishes the streams until the last one ends; `onTick` runs every tick with the ms since the
   * start (e.g. checks on the services, snapshots); what it throws ends the run.
   */
  async run(streams: EventStream[], onTick: (elapsedMs: number) => void = () => undefined): Promise<PublishReport> {
    const producer = this.producer!;
    const template = this.template!;
    const topic = this.stack.topic(TopicNames.policyStatus);
    const startedAt = epochMs();
    const report: PublishReport = { startedAt, published: new Map(), lateness: [], sendMs: [], sends: 0, endedAt: startedAt };
    const next = streams.map(() => 0);
    const total = (s: EventStream) => Math.ceil(((s.toMs - s.fromMs) * s.rate) / 1000);
    const dueAt = (s: EventStream, seq: number) => startedAt + s.fromMs + (seq * 1000) / s.rate;

    const sendDue = async (): Promise<void> => {
      const now = epochMs();
      const messages: Message[] = [];
      let oldest = Infinity;
      const encodings: Array<Promise<void>> = [];
      streams.forEach((s, i) => {
        while (next[i]! < total(s) && dueAt(s, next[i]!) <= now) {
          const seq = next[i]!++;
          const due = dueAt(s, seq);
          oldest = Math.min(oldest, due);
          const policyNumber = policyNumberOf(s.label, seq, due);
          const event = {
            ...template,
            event_id: randomUUID(),
            partner_id: s.partnerId,
            policy: { ...template.policy, policy_number: policyNumber },
          };
          const message: Message = { key: policyNumber, value: null };
          messages.push(message);
          encodings.push(
            this.stack.codec.encode(topic, event).then((value) => {
              message.value = value;
            }),
          );
        }
        report.published.set(s.label, next[i]!);
      });
      if (messages.length === 0) return;
      await Promise.all(encodings);
      const sendStarted = epochMs();
      await producer.send({ topic, messages, acks: -1 });
      report.sends++;
      report.lateness.push(sendStarted - oldest);
      report.sendMs.push(epochMs() - sendStarted);
      report.endedAt = epochMs();
    };

    // A tick never waits for a send: one in flight leaves the events due meanwhile to the next.
    const finished = () => streams.every((s, i) => next[i]! >= total(s));
    let sending: Promise<void> | undefined;
    let failure: Error | undefined;
    while (!finished() || sending) {
      if (failure) throw failure;
      onTick(epochMs() - startedAt);
      sending ??= sendDue().then(
        () => {
          sending = undefined;
        },
        (error: unknown) => {
          failure = error instanceof Error ? error : new Error(String(error));
          sending = undefined;
        },
      );
      await sleep(FixedRatePublisher.TICK_MS);
    }
    if (failure) throw failure;
    return report;
  }
}

// ---------------------------------------------------------------------------------------------
// Figures.

/** Latency figures of a set of samples (ms). */
export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function summarise(samples: number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? NaN;
  return { count: sorted.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1] ?? NaN };
}

export const fmtMs = (ms: number) => (Number.isFinite(ms) ? `${ms.toFixed(1)} ms` : 'n/a');

export function describeLatency(s: LatencySummary): string {
  return `p50 ${fmtMs(s.p50)}  p90 ${fmtMs(s.p90)}  p99 ${fmtMs(s.p99)}  max ${fmtMs(s.max)}`;
}

/** End-to-end figures of one stream. */
export interface StreamFigures {
  published: number;
  received: number;
  latency: LatencySummary;
  /** Callbacks received per second: the stream's callbacks over the time from its first due event to the last arrival. */
  deliveredPerSecond: number;
}

/** The callbacks of one stream that reached the receiver: when each was due and when it arrived. */
export function* arrivalsOf(
  receiver: CallbackReceiver,
  label: string,
): Generator<{ policyNumber: string; dueAt: number; arrivedAt: number }> {
  for (const [policyNumber, arrivedAt] of receiver.arrivals) {
    const parsed = parsePolicyNumber(policyNumber);
    if (parsed?.label === label) yield { policyNumber, dueAt: parsed.dueAt, arrivedAt };
  }
}

export function streamFigures(receiver: CallbackReceiver, report: PublishReport, stream: EventStream): StreamFigures {
  const fromAt = report.startedAt + stream.fromMs;
  const latencies: number[] = [];
  let lastArrival = fromAt;
  for (const { dueAt, arrivedAt } of arrivalsOf(receiver, stream.label)) {
    latencies.push(arrivedAt - dueAt);
    lastArrival = Math.max(lastArrival, arrivedAt);
  }
  return {
    published: report.published.get(stream.label) ?? 0,
    received: latencies.length,
    latency: summarise(latencies),
    deliveredPerSecond: lastArrival > fromAt ? latencies.length / ((lastArrival - fromAt) / 1000) : 0,
  };
}

/**
 * A stream's latency second by second of its due times (`+s p99 … max …`), so a tail can be
 * placed in time (the start of a phase, a burst of retries coming due) rather than guessed at.
 */
export function describeTimeline(
  receiver: CallbackReceiver,
  report: PublishReport,
  stream: EventStream,
  bucketMs = 1000,
  tracer?: CommitTracer,
): string {
  const fromAt = report.startedAt + stream.fromMs;
  const perBucket = new Map<number, { total: number[]; toCommitted: number[] }>();
  for (const { policyNumber, dueAt, arrivedAt } of arrivalsOf(receiver, stream.label)) {
    const bucket = Math.floor((dueAt - fromAt) / bucketMs);
    const figures = perBucket.get(bucket) ?? { total: [], toCommitted: [] };
    figures.total.push(arrivedAt - dueAt);
    const committedAt = tracer?.arrivals.get(policyNumber);
    if (committedAt !== undefined) figures.toCommitted.push(committedAt - dueAt);
    perBucket.set(bucket, figures);
  }
  const buckets = [...perBucket.keys()]
    .sort((a, b) => a - b)
    .map((bucket) => {
      const { total, toCommitted } = perBucket.get(bucket)!;
      const summary = summarise(total);
      const split = toCommitted.length > 0 ? ` (readable p99 ${summarise(toCommitted).p99.toFixed(0)})` : '';
      return `+${((bucket * bucketMs) / 1000).toString()}s p99 ${summary.p99.toFixed(0)} max ${summary.max.toFixed(0)}${split}`;
    })
    .join('; ');
  // The epoch lets other recordings (CPU samples, GC traces) be lined up with the buckets.
  return `from epoch ms ${fromAt.toFixed(0)}: ${buckets}`;
}

/**
 * Where a stream's time went: from due to readable on callback-requests (publish, the
 * policy-status-consumer and its transaction), and from there to the partner (the sender).
 */
export function describeStages(tracer: CommitTracer, receiver: CallbackReceiver, label: string): string {
  const toCommitted: number[] = [];
  const onward: number[] = [];
  for (const { policyNumber, dueAt, arrivedAt } of arrivalsOf(receiver, label)) {
    const committedAt = tracer.arrivals.get(policyNumber);
    if (committedAt === undefined) continue;
    toCommitted.push(committedAt - dueAt);
    onward.push(arrivedAt - committedAt);
  }
  return (
    `due → readable on callback-requests (read_committed): ${describeLatency(summarise(toCommitted))}; ` +
    `readable → callback received: ${describeLatency(summarise(onward))}`
  );
}

/** The services' stage histograms at one moment: the policy-status transactions, and one partner's attempts. */
export interface StageHistograms {
  transaction: Array<[number, number]>;
  attempt: Array<[number, number]>;
  senderMetrics: string;
  consumerMetrics: string;
}

export async function stageHistograms(consumer: ServiceProcess, sender: ServiceProcess, partnerId: string): Promise<StageHistograms> {
  const [consumerMetrics, senderMetrics] = await Promise.all([consumer.metrics(), sender.metrics()]);
  return {
    transaction: histogramBuckets(consumerMetrics, 'hookstream_policy_status_transaction_duration_seconds'),
    attempt: histogramBuckets(senderMetrics, 'hookstream_callback_attempt_duration_seconds', `partner="${partnerId}"`),
    senderMetrics,
    consumerMetrics,
  };
}

/**
 * Each service's event-loop delay since its previous scrape (prom-client's default metrics reset
 * their histogram on every scrape, so the snapshot at a window's end covers the window).
 */
export function describeEventLoopDelay(after: StageHistograms): string {
  const delay = (metrics: string) => {
    const ms = (name: string) => fmtMs(counterSum(metrics, `nodejs_eventloop_lag_${name}_seconds`) * 1000);
    return `p50 ${ms('p50')}, p99 ${ms('p99')}, max ${ms('max')}`;
  };
  return `policy-status-consumer ${delay(after.consumerMetrics)}; callback-sender ${delay(after.senderMetrics)}`;
}

/**
 * Each service's garbage-collection pauses between two scrapes (prom-client's
 * nodejs_gc_duration_seconds): the total, and how many lasted 10 ms or more, per kind of GC.
 */
export function describeGcPauses(before: StageHistograms, after: StageHistograms): string {
  const pauses = (earlier: string, later: string) =>
    ['minor', 'major', 'incremental']
      .map((kind) => {
        const match = `kind="${kind}"`;
        const total =
          counterSum(later, 'nodejs_gc_duration_seconds_sum', match) - counterSum(earlier, 'nodejs_gc_duration_seconds_sum', match);
        const buckets = bucketsBetween(
          histogramBuckets(earlier, 'nodejs_gc_duration_seconds', match),
          histogramBuckets(later, 'nodejs_gc_duration_seconds', match),
        );
        const all = buckets[buckets.length - 1]?.[1] ?? 0;
        const under10ms = buckets.find(([bound]) => bound >= 0.01)?.[1] ?? all;
        return `${kind} ${all} (${fmtMs(total * 1000)} in all, ${all - under10ms} ≥ 10 ms)`;
      })
      .join(', ');
  return `policy-status-consumer ${pauses(before.consumerMetrics, after.consumerMetrics)}; callback-sender ${pauses(before.senderMetrics, after.senderMetrics)}`;
}

/** What a measured publish gives: the report, the services' histograms at the window's start, the CPU over the window. */
export interface MeasuredPublish {
  report: PublishReport;
  atStart: StageHistograms;
  cpuFigures: string;
}

/**
 * Publishes `streams`, checking the services on every tick. When the measured window begins
 * (`fromMs`, on the publisher's tick), it snapshots the services' histograms for `partnerId` and
 * starts the CPU window; receipts come over once a second, in small helpings, so that no large
 * IPC message lands mid-run.
 */
export async function publishMeasured(
  publisher: FixedRatePublisher,
  streams: EventStream[],
  window: { fromMs: number; partnerId: string },
  processes: { consumer: ServiceProcess; sender: ServiceProcess; receiver: CallbackReceiver; tracer: CommitTracer | undefined },
): Promise<MeasuredPublish> {
  const { consumer, sender, receiver, tracer } = processes;
  let atStart: Promise<StageHistograms> | undefined;
  let cpu: CpuWindow | undefined;
  let collectedAt = 0;
  const report = await publisher.run(streams, (elapsedMs) => {
    consumer.checkAlive();
    sender.checkAlive();
    if (!atStart && elapsedMs >= window.fromMs) {
      atStart = stageHistograms(consumer, sender, window.partnerId);
      cpu = CpuWindow.start(
        {
          consumer: consumer.pid,
          sender: sender.pid,
          receiver: receiver.child.pid,
          tracer: tracer?.child.pid,
          ...stackProcesses(),
        },
        'bench (publisher)',
      );
    }
    if (elapsedMs - collectedAt >= 1000) {
      collectedAt = elapsedMs;
      void receiver.collect();
      void tracer?.collect();
    }
  });
  const cpuFigures = cpu?.describe() ?? 'n/a';
  if (!atStart) throw new Error(`the measured window (from ${window.fromMs} ms) never began`);
  return { report, atStart: await atStart, cpuFigures };
}

/** What the services observed between two snapshots. */
export function describeStageHistograms(before: StageHistograms, after: StageHistograms): string {
  return (
    `policy-status transaction (one per batch and partition) ${describeBuckets(bucketsBetween(before.transaction, after.transaction))}; ` +
    `sender attempt (POST to response) ${describeBuckets(bucketsBetween(before.attempt, after.attempt))}`
  );
}

/** Waits until `expected` callbacks of `label` have arrived, or none arrived for `stallMs`, checking the services. */
export async function waitForArrivals(
  receiver: CallbackReceiver,
  label: string,
  expected: number,
  stallMs: number,
  check: () => void,
): Promise<void> {
  const count = () => receiver.arrivedPerLabel.get(label) ?? 0;
  let seen = -1;
  let progressAt = performance.now();
  for (;;) {
    await receiver.collect();
    check();
    const now = count();
    if (now >= expected) return;
    if (now > seen) {
      seen = now;
      progressAt = performance.now();
    } else if (performance.now() - progressAt > stallMs) {
      return;
    }
    await sleep(250);
  }
}

/** Buckets (upper bound → cumulative count) of a histogram's series whose labels include `match`, summed. */
function histogramBuckets(metrics: string, name: string, match = ''): Array<[number, number]> {
  const buckets = new Map<number, number>();
  for (const m of metrics.matchAll(new RegExp(`^${name}_bucket\\{([^}]*)\\} (\\S+)$`, 'gm'))) {
    const labels = m[1] ?? '';
    const le = /le="([^"]+)"/.exec(labels)?.[1];
    if (le === undefined || !labels.includes(match)) continue;
    const bound = le === '+Inf' ? Infinity : Number(le);
    buckets.set(bound, (buckets.get(bound) ?? 0) + Number(m[2]));
  }
  return [...buckets.entries()].sort((a, b) => a[0] - b[0]);
}

/** Buckets of `after` minus those of `before`: what was observed in between. */
function bucketsBetween(before: Array<[number, number]>, after: Array<[number, number]>): Array<[number, number]> {
  const earlier = new Map(before);
  return after.map(([bound, count]) => [bound, count - (earlier.get(bound) ?? 0)]);
}

/** A quantile of cumulative buckets, interpolated within its bucket as Prometheus does (seconds). */
function bucketQuantile(buckets: Array<[number, number]>, q: number): number | undefined {
  const total = buckets[buckets.length - 1]?.[1] ?? 0;
  if (total === 0) return undefined;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const [bound, count] of buckets) {
    if (count >= rank) return bound === Infinity ? lower : lower + ((bound - lower) * (rank - below)) / Math.max(1, count - below);
    lower = bound;
    below = count;
  }
  return undefined;
}

/** "p50 x ms, p99 y ms (n)" of histogram buckets in seconds. */
function describeBuckets(buckets: Array<[number, number]>): string {
  const q = (p: number) => {
    const s = bucketQuantile(buckets, p);
    return s === undefined ? 'n/a' : fmtMs(s * 1000);
  };
  return `p50 ${q(0.5)}, p99 ${q(0.99)} (${buckets[buckets.length - 1]?.[1] ?? 0} observed)`;
}

// Preloaded into a service (node --require): SIGTERM to itself once the bench that started it is gone.
if (require.main !== module && process.env[BENCH_PID] !== undefined && process.env[BENCH_PID] === String(process.ppid)) {
  setInterval(() => {
    if (String(process.ppid) !== process.env[BENCH_PID]) process.kill(process.pid, 'SIGTERM');
  }, 500).unref();
}
if (require.main === module && process.argv[2] === 'receiver') runReceiver();
if (require.main === module && process.argv[2] === 'tracer') {
  runCommitTracer(process.argv[3] ?? '', process.argv[4] ?? '').catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
