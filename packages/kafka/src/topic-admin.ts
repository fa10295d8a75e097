import { sleep } from '@hookstream/runtime';
import { isRetryableKafkaError } from './retryable';
import type { ResolvedTopic } from './topics';
import type { Admin } from './types';

export interface TopicDrift {
  /** A topic config name, or "partitions" / "replication.factor". */
  setting: string;
  wanted: string;
  actual: string;
  /** True when `--fix` changed it to the wanted value. */
  fixed: boolean;
  /** Why it was not fixed, when it can't be done safely. */
  note?: string;
}

export interface TopicReport {
  topic: string;
  outcome: 'created' | 'unchanged' | 'drift' | 'fixed';
  drift: TopicDrift[];
}

export interface EnsureTopicsOptions {
  /** Alter configs that differ from the wanted ones. Partition and replication drift is only reported. Default false. */
  fixConfigs?: boolean;
}

/**
 * The replication factor Hookstream wants on a cluster of `liveBrokers` brokers whose
 * `default.replication.factor` is `brokerDefault`: three replicas where there are three brokers
 * (one per broker on a smaller cluster), or the cluster's own default when an operator set it
 * higher. The default counts too because the broker count seen is only the live brokers: with one
 * node of three away, topics must still be wanted with three replicas (creating one then fails
 * loudly rather than quietly making a less durable topic, and drift reports no false change).
 */
export function replicationFactorFor(liveBrokers: number, brokerDefault = 1): number {
  return Math.max(Math.min(3, liveBrokers), brokerDefault);
}

/**
 * The replication factor for the cluster `admin` talks to: {@link replicationFactorFor} of its
 * live brokers and `default.replication.factor` (when the broker's config cannot be read, e.g.
 * without the DescribeConfigs permission, the live brokers alone decide).
 */
export async function clusterReplicationFactor(admin: Admin): Promise<number> {
  const { brokers } = await admin.describeCluster();
  const brokerDefault = await admin
    .describeBrokerConfig(brokers[0]?.nodeId ?? 0, ['default.replication.factor'])
    .then((configs) => Number(configs.get('default.replication.factor')))
    .catch(() => Number.NaN);
  return replicationFactorFor(brokers.length, Number.isInteger(brokerDefault) && brokerDefault > 0 ? brokerDefault : 1);
}

/**
 * Creates `topics` and waits for their leaders. A retryable failure (a broker still loading, a
 * lost answer) is retried for what is still missing, so a busy cluster does not fail an
 * idempotent ensure. So is the controller's refusal while every broker is fenced: KRaft fences a
 * broker that missed its heartbeats (a restart, a starved JVM) until it registers again, seconds
 * later, and answers INVALID_REPLICATION_FACTOR meanwhile, a code that otherwise means a real
 * misconfiguration and is not retried.
 */
async function createTopicsSettled(admin: Admin, topics: ResolvedTopic[], attempts = 10): Promise<void> {
  let pending = topics;
  for (let attempt = 1; pending.length > 0; attempt++) {
    try {
      await admin.createTopics({
        topics: pending.map((t) => ({
          topic: t.topic,
          numPartitions: t.partitions,
          replicationFactor: t.replicationFactor,
          configEntries: Object.entries(t.config).map(([name, value]) => ({ name, value })),
        })),
      });
      return;
    } catch (error) {
      if (attempt >= attempts || !(isRetryableKafkaError(error) || brokersFenced(error))) throw error;
      await sleep(Math.min(2000, 200 * attempt));
      const now = new Set(await admin.listTopics());
      pending = pending.filter((t) => !now.has(t.topic));
    }
  }
}

const brokersFenced = (error: unknown) => error instanceof Error && /brokers are currently fenced/i.test(error.message);

/**
 * Creates missing topics and compares existing ones with the wanted settings.
 * Safe to run again: existing topics are never recreated. Partition counts are never
 * changed automatically: adding partitions moves keys to other partitions and breaks
 * per-policy ordering and compaction, so that is an operator's decision.
 */
export async function ensureTopics(admin: Admin, wanted: ResolvedTopic[], options: EnsureTopicsOptions = {}): Promise<TopicReport[]> {
  const existing = new Set(await admin.listTopics());
  const missing = wanted.filter((t) => !existing.has(t.topic));
  await createTopicsSettled(admin, missing);
  const present = wanted.filter((t) => existing.has(t.topic));
  const reports: TopicReport[] = missing.map((t) => ({ topic: t.topic, outcome: 'created', drift: [] }));
  if (present.length === 0) return reports;

  const [metadata, configs] = await Promise.all([
    admin.fetchTopicMetadata({ topics: present.map((t) => t.topic) }),
    admin.describeTopicConfigs(present.map((t) => t.topic)),
  ]);

  for (const t of present) {
    const drift: TopicDrift[] = [];
    const meta = metadata.find((m) => m.name === t.topic);
    const partitions = meta?.partitions.length ?? 0;
    if (partitions !== t.partitions) {
      drift.push({
        setting: 'partitions',
        wanted: String(t.partitions),
        actual: String(partitions),
        fixed: false,
        note: 'not changed automatically: it would move keys to other partitions (kafka-topics.sh --alter to decide)',
      });
    }
    const replicas = meta?.partitions[0]?.replicas.length ?? 0;
    if (replicas !== t.replicationFactor) {
      drift.push({
        setting: 'replication.factor',
        wanted: String(t.replicationFactor),
        actual: String(replicas),
        fixed: false,
        note: 'needs a partition reassignment (kafka-reassign-partitions.sh)',
      });
    }

    const actual = configs.get(t.topic) ?? new Map<string, string>();
    const configDrift = Object.entries(t.config).filter(([name, value]) => actual.get(name) !== value);
    for (const [name, value] of configDrift) {
      drift.push({ setting: name, wanted: value, actual: actual.get(name) ?? '(unset)', fixed: false });
    }

    if (configDrift.length > 0 && options.fixConfigs) {
      // Only the drifted entries are set: the operator's other overrides stay.
      await admin.setTopicConfigs(
        t.topic,
        configDrift.map(([name, value]) => ({ name, value })),
      );
      for (const d of drift) if (d.setting in t.config) d.fixed = true;
    }

    const unresolved = drift.some((d) => !d.fixed);
    reports.push({ topic: t.topic, outcome: drift.length === 0 ? 'unchanged' : unresolved ? 'drift' : 'fixed', drift });
  }
  return reports;
}
