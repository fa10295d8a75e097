/**
 * One measured run of the outbound benches: publishing with the services checked on every tick,
 * the services' histograms and the CPU window taken when the measured window begins, and then
 * waiting for the callbacks still on their way.
 */
import { CpuWindow, stackProcesses } from '../support/cpu-usage';
import type { ServiceProcess } from '../support/service-process';
import { waitForCount } from '../support/wait-for-count';
import type { CallbackReceiver, CommitTracer } from './arrival-log';
import type { EventStream, PublishReport } from './event-stream';
import type { FixedRatePublisher } from './fixed-rate-publisher';
import { stageHistograms, type StageHistograms } from './service-figures';

/** What a measured publish gives: the report, the services' histograms at the window's start, the CPU over the window. */
export interface MeasuredPublish {
  report: PublishReport;
  atStart: StageHistograms;
  cpuFigures: string;
  /** The window's length and each process's CPU seconds over it (consumer, sender, broker, …), read when the publishing ended. */
  cpuUsage: ReturnType<CpuWindow['usage']>;
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
  if (!atStart || !cpu) throw new Error(`the measured window (from ${window.fromMs} ms) never began`);
  const cpuUsage = cpu.usage();
  const cpuFigures = cpu.describe();
  return { report, atStart: await atStart, cpuFigures, cpuUsage };
}

/** Waits until `expected` callbacks of `label` have arrived, or none arrived for `stallMs`, checking the services. */
export async function waitForArrivals(
  receiver: CallbackReceiver,
  label: string,
  expected: number,
  stallMs: number,
  check: () => void,
): Promise<void> {
  const arrived = async () => {
    await receiver.collect();
    return receiver.arrivedPerLabel.get(label) ?? 0;
  };
  await waitForCount(arrived, expected, stallMs, check);
}
