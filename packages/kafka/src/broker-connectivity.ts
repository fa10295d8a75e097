import type { ClientStatistics } from './types';

/**
 * Whether a producer could write now, from what librdkafka's statistics last said of its broker
 * connections: a partition is writable while its leader's connection is up. librdkafka marks a
 * connection down the moment it breaks and up again once it reconnects (at most a second between
 * tries), and reports every `statistics.interval.ms`, so this follows a broker's death and return
 * within that interval, without a request of its own: the ingress refuses a webhook at once
 * instead of letting it wait for a broker that is gone, and /readyz answers from memory.
 */
export class BrokerConnectivity {
  /** Node ids of the brokers whose connection is up; undefined until the first statistics. */
  private up: Set<number> | undefined;
  /** Leader of each partition of the topics the producer has metadata for. */
  private readonly leaders = new Map<string, Map<number, number>>();

  update(stats: ClientStatistics): void {
    const up = new Set<number>();
    for (const broker of Object.values(stats.brokers)) {
      // Bootstrap entries (node id -1) are addresses, not brokers that lead anything.
      if (broker.nodeid >= 0 && broker.state === 'UP') up.add(broker.nodeid);
    }
    this.up = up;
    for (const [topic, { partitions }] of Object.entries(stats.topics ?? {})) {
      const leaders = new Map<number, number>();
      for (const [id, partition] of Object.entries(partitions)) {
        // Partition -1 is librdkafka's queue of records whose partition is not chosen yet.
        if (Number(id) >= 0) leaders.set(Number(id), partition.leader);
      }
      this.leaders.set(topic, leaders);
    }
  }

  /**
   * False when a write to one of `topics` could not succeed now: a partition without a leader, or
   * whose leader's connection is down; for a topic not written yet, when no broker's connection is
   * up. True until the first statistics (nothing known yet: the write itself will tell).
   */
  writable(topics: readonly string[]): boolean {
    return topics.every((topic) => this.ledPartitions(topic, (leaders, up) => leaders.every((leader) => up.has(leader))));
  }

  /** False when no write to `topic` could succeed now: no partition's leader connected (see writable). */
  reachable(topic: string): boolean {
    return this.ledPartitions(topic, (leaders, up) => leaders.some((leader) => up.has(leader)));
  }

  private ledPartitions(topic: string, test: (leaders: number[], up: ReadonlySet<number>) => boolean): boolean {
    const up = this.up;
    if (!up) return true;
    const leaders = this.leaders.get(topic);
    if (!leaders || leaders.size === 0) return up.size > 0;
    return test([...leaders.values()], up);
  }
}
