/**
 * Benchmark: the outbound services scaled out and back in under a steady load, as the chart's
 * autoscaler would (docs/deployment.md), and the capacity of one replica that sets the chart's
 * lag threshold.
 *
 *   npm run bench:autoscale      (starts a throwaway local stack around it)
 *
 * 1. Capacity: BENCH_BACKLOG policy events (default 30,000) are published while no service runs;
 *    then one policy-status-consumer and one callback-sender start, and the rate at which the
 *    callbacks arrive while the backlog drains is the capacity of one replica of each.
 * 2. Scaling: BENCH_RATE events/s (default 500) for BENCH_PHASE_SECONDS (default 60) on one replica
 *    of each, then two more of each are started under the load (3 of each), then, after another
 *    phase, those two are stopped with SIGTERM (1 of each) for a last phase.
 * Printed: every 5 s the callbacks arriving per second, the two groups' lag in records (as the
 * services measure it for the autoscaler, CONSUMER_LAG_INTERVAL_MS 2 s) and the replicas; at the
 * end the events published, received (distinct), lost and repeated. Exits 0 when it ran, as
 * every bench (the figures say what happened), 1 when the run itself failed.
 */
import { routeProcessWarnings } from '@hookstream/runtime';
import { CallbackReceiver } from './outbound/arrival-log';
import type { EventStream } from './outbound/event-stream';
import { FixedRatePublisher } from './outbound/fixed-rate-publisher';
import { waitForArrivals } from './outbound/measured-publish';
import { CALLBACK_PATH, prepareOutboundStack, type OutboundStack } from './outbound/outbound-stack';
import { envNumber, runBench } from './support/bench-run';
import { ServiceProcess } from './support/service-process';

const backlog = envNumber('BENCH_BACKLOG', 30_000);
const rate = envNumber('BENCH_RATE', 500);
const phaseSeconds = envNumber('BENCH_PHASE_SECONDS', 60);
const PARTNER = 'bench-autoscale';
const STALL_MS = 30_000;
const SAMPLE_MS = 5_000;

type Replicas = { consumers: ServiceProcess[]; senders: ServiceProcess[] };

async function main() {
  routeProcessWarnings((w) => console.error(w.message));
  const stack = await prepareOutboundStack({ ...process.env, CONSUMER_LAG_INTERVAL_MS: '2000' });
  const receiver = await CallbackReceiver.start();
  await stack.onboard(PARTNER, `${receiver.answeringUrl}${CALLBACK_PATH}`);
  const publisher = new FixedRatePublisher(stack);
  await publisher.connect();
  console.log(
    `autoscale: ${backlog} events of backlog, then ${rate}/s in three ${phaseSeconds} s phases (1, 3, 1 replicas); Node ${process.versions.node}`,
  );

  // 1. Capacity: the backlog published first, then drained by one replica of each.
  const burst: EventStream = { label: 'backlog', partnerId: PARTNER, rate: backlog / 5, fromMs: 0, toMs: 5_000 };
  await publisher.run([burst]);
  const replicas: Replicas = { consumers: [], senders: [] };
  await scaleTo(stack, replicas, 1);
  const drainStart = Date.now();
  await waitForArrivals(receiver, 'backlog', backlog, STALL_MS, () => checkAlive(replicas));
  const drainSeconds = (Date.now() - drainStart) / 1000;
  const drained = receiver.arrivedPerLabel.get('backlog') ?? 0;
  console.log(
    `capacity of one replica of each: ${drained} callbacks in ${drainSeconds.toFixed(1)} s = ${(drained / drainSeconds).toFixed(0)}/s (from both replicas ready to the last callback)`,
  );

  // 2. Scaling under the steady load.
  const steady: EventStream = { label: 'steady', partnerId: PARTNER, rate, fromMs: 0, toMs: 3 * phaseSeconds * 1000 };
  const samples: string[] = [];
  let sampledAt = 0;
  let lastArrived = receiver.arrivedPerLabel.get('steady') ?? 0;
  let scaling: Promise<void> | undefined;
  const steps = [
    { atMs: phaseSeconds * 1000, to: 3 },
    { atMs: 2 * phaseSeconds * 1000, to: 1 },
  ];
  const publishing = publisher.run([steady], (elapsedMs) => {
    checkAlive(replicas);
    const step = steps[0];
    if (step && elapsedMs >= step.atMs && !scaling) {
      steps.shift();
      samples.push(`${(elapsedMs / 1000).toFixed(0)} s: scaling to ${step.to} of each`);
      scaling = scaleTo(stack, replicas, step.to).finally(() => (scaling = undefined));
    }
    if (elapsedMs - sampledAt >= SAMPLE_MS) {
      sampledAt = elapsedMs;
      void sample(receiver, replicas).then(({ arrived, lag }) => {
        samples.push(
          `${(elapsedMs / 1000).toFixed(0)} s: ${((arrived - lastArrived) / (SAMPLE_MS / 1000)).toFixed(0)} callbacks/s; ` +
            `lag ${lag}; ${replicas.consumers.length} consumer(s), ${replicas.senders.length} sender(s)`,
        );
        lastArrived = arrived;
      });
    }
  });
  const report = await publishing;
  await scaling;
  const published = report.published.get('steady') ?? 0;
  await waitForArrivals(receiver, 'steady', published, STALL_MS, () => checkAlive(replicas));
  for (const line of samples) console.log(`  ${line}`);
  const received = receiver.arrivedPerLabel.get('steady') ?? 0;
  console.log(
    `steady load: ${published} published, ${received} received (distinct policies), ${published - received} lost, ` +
      `${receiver.repeats} repeats (backlog and steady; a repeat carries its first delivery's policy number)`,
  );
  await Promise.all([...replicas.consumers, ...replicas.senders].map((r) => r.stop()));
  await publisher.disconnect();
}

/** Starts or stops (SIGTERM, the newest first) replicas until there are `count` of each. */
async function scaleTo(stack: OutboundStack, replicas: Replicas, count: number): Promise<void> {
  const starts: Array<Promise<void>> = [];
  for (const [list, name] of [
    [replicas.consumers, 'policy-status-consumer'],
    [replicas.senders, 'callback-sender'],
  ] as const) {
    while (list.length > count) {
      const leaving = list.pop()!;
      starts.push(leaving.stop());
    }
    for (let i = list.length; i < count; i++)
      starts.push(ServiceProcess.start(name, stack.serviceEnv).then((started) => void list.push(started)));
  }
  await Promise.all(starts);
}

function checkAlive(replicas: Replicas): void {
  for (const replica of [...replicas.consumers, ...replicas.senders]) replica.checkAlive();
}

/** Callbacks so far, and each group's lag in records as its first replica last measured it. */
async function sample(receiver: CallbackReceiver, replicas: Replicas): Promise<{ arrived: number; lag: string }> {
  await receiver.collect();
  const lagOf = async (replica: ServiceProcess | undefined, topic: string) => {
    if (!replica) return 'n/a';
    const page = await replica.metrics().catch(() => '');
    let sum = 0;
    for (const line of page.split('\n')) {
      if (line.startsWith('hookstream_consumer_lag_records{') && line.includes(`${topic}"`)) sum += Number(line.split(' ').at(-1));
    }
    return String(sum);
  };
  const [policyStatus, callbackRequests] = await Promise.all([
    lagOf(replicas.consumers[0], 'policy-status'),
    lagOf(replicas.senders[0], 'callback-requests'),
  ]);
  return {
    arrived: receiver.arrivedPerLabel.get('steady') ?? 0,
    lag: `policy-status ${policyStatus}, callback-requests ${callbackRequests}`,
  };
}

runBench(main, 30 * 60_000);
