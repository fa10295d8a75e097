/**
 * The schedule of the outbound benches: streams of policy-status events at fixed rates, the clock
 * their due times are on, and the policy number each event carries its stream and due time in.
 *
 * Latency is measured end to end on one machine clock: each event's policy_number carries the
 * time it was scheduled to be published (epoch ms), and the receiver notes when its callback
 * arrived. Scheduled rather than actual publish time, so a publisher falling behind counts
 * against the figures instead of hiding the delay (no coordinated omission).
 */
import { performance } from 'node:perf_hooks';

/** Wall-clock epoch ms with sub-ms resolution, comparable across processes on one machine. */
export const epochMs = (): number => performance.timeOrigin + performance.now();

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
export const policyNumberOf = (label: string, seq: number, dueAt: number) => `${label}-${seq}-${dueAt.toFixed(3)}`;

/** When the event of a policy number was due to be published (epoch ms), and its stream label. */
export function parsePolicyNumber(policyNumber: string): { label: string; dueAt: number } | undefined {
  const m = /^(.+)-(\d+)-(\d+\.\d+)$/.exec(policyNumber);
  return m ? { label: m[1]!, dueAt: Number(m[3]) } : undefined;
}
