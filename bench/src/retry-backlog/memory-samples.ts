/**
 * A service's memory over a window, sampled every few seconds: its RSS from /proc (VmRSS: what
 * the kernel holds for it, librdkafka's queues included) and its V8 heap used, with the retry-tier
 * partitions it has paused, from its /metrics page (prom-client's nodejs_heap_size_used_bytes).
 */
import { readFileSync } from 'node:fs';
import type { ServiceProcess } from '../support/service-process';
import { counterSum } from '../support/metrics-page';

const MB = 1024 * 1024;

/** Each sample's figures, in MB for memory. */
export interface MemorySample {
  heapMb: number;
  rssMb: number;
  pausedPartitions: number;
}

/** RSS of a process now, in MB (VmRSS), from /proc; NaN once it is gone. */
function rssMb(pid: number | undefined): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return line ? Number(line[1]) / 1024 : NaN;
}

export class MemorySamples {
  readonly samples: MemorySample[] = [];

  /** `pausedGauge`: the service's gauge of retry-tier partitions paused. */
  constructor(
    readonly service: ServiceProcess,
    private readonly pausedGauge: string,
  ) {}

  async sample(): Promise<void> {
    this.service.checkAlive();
    const metrics = await this.service.metrics();
    this.samples.push({
      heapMb: counterSum(metrics, 'nodejs_heap_size_used_bytes') / MB,
      rssMb: rssMb(this.service.pid),
      pausedPartitions: counterSum(metrics, this.pausedGauge),
    });
  }

  /** Largest and last of each figure: "max / last". */
  summary(): { heap: string; rss: string; paused: string } {
    const of = (pick: (s: MemorySample) => number, digits = 0) => {
      const values = this.samples.map(pick);
      return `${Math.max(...values).toFixed(digits)} / ${values[values.length - 1]!.toFixed(digits)}`;
    };
    return { heap: of((s) => s.heapMb), rss: of((s) => s.rssMb), paused: of((s) => s.pausedPartitions) };
  }

  /** Each sample's heap and RSS, for the run's log: "heap/rss MB, …". */
  timeline(): string {
    return this.samples.map((s) => `${s.heapMb.toFixed(0)}/${s.rssMb.toFixed(0)}`).join(' ');
  }
}
