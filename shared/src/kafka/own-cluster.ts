import type { Kafka } from 'kafkajs';

/**
 * How old kafkajs lets a cluster's metadata grow before it asks the broker again: kafkajs's own
 * default for its producers and consumers. Its cluster factory has no default of its own: a
 * cluster made without this asks for the metadata before every fetch (about 70 Metadata requests
 * a second from one callback-sender at 200 events/s). A leader that moves still shows at once: the
 * fetch fails, and the failure path refreshes the metadata.
 */
const METADATA_MAX_AGE_MS = 300_000;

/** kafkajs's isolation level of a read_committed fetch. */
export const READ_COMMITTED = 1;

/**
 * A kafkajs cluster (connections, metadata, fetch) of the caller's own, not connected yet, made by
 * kafkajs's private factory, a symbol on the client: the TopicReader and PartitionProbe fetch
 * through it without a consumer group. `C` is the part of kafkajs's Cluster the caller uses.
 */
export function createOwnCluster<C>(kafka: Kafka, isolationLevel: number, user: string): C {
  const createCluster = Object.getOwnPropertySymbols(kafka).find((s) => s.description === 'private:Kafka:createCluster');
  const factory = createCluster && (kafka as unknown as Record<symbol, (options: object) => C>)[createCluster];
  if (!factory) throw new Error(`kafkajs internals changed: the ${user} cannot create its cluster`);
  return factory.call(kafka, { allowAutoTopicCreation: false, isolationLevel, metadataMaxAge: METADATA_MAX_AGE_MS });
}
