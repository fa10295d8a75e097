import type { Kafka } from 'kafkajs';

/**
 * kafkajs 2.2.4 (its last release) sends a FindCoordinator request before every request it makes
 * to a coordinator: a transaction that carries consumed offsets then costs nine round trips,
 * (lookup, AddPartitionsToTxn, Produce, lookup, AddOffsetsToTxn, lookup, TxnOffsetCommit, lookup,
 * EndTxn), where the Java client, which keeps its coordinators, needs five. At a few hundred
 * transactions a second the lookups were a third of the broker requests and of each transaction's
 * time, and the transaction's time is most of the outbound end-to-end latency.
 *
 * `withCachedCoordinators` gives a view of `kafka` whose producers remember each coordinator's
 * node for `ttlMs`, so a lookup is made once in that time instead of four times per transaction.
 * The broker connection itself is still taken from the producer's pool on every request, so a
 * dropped connection is re-opened as before. A coordinator that moves (its partition's leader
 * changed) answers NOT_COORDINATOR: the transaction fails, and PartitionTransactions discards a
 * producer after any failed transaction, so its successor (a new cluster, an empty cache) looks the
 * coordinator up afresh; the time limit bounds how long any other path can hold a stale node. A
 * metadata refresh, which kafkajs makes after errors that suggest the cluster changed, empties the
 * cache too.
 *
 * This reaches into kafkajs's private cluster factory (a symbol on the client). Should a kafkajs
 * release rename it, the view is not made and `undefined` comes back: the caller then goes on
 * with the plain client (slower, never wrong). A test asserts the lookups really are cached.
 */
export function withCachedCoordinators(kafka: Kafka, ttlMs: number): Kafka | undefined {
  const createCluster = Object.getOwnPropertySymbols(kafka).find((symbol) => symbol.description === 'private:Kafka:createCluster');
  const original = createCluster && (kafka as unknown as Record<symbol, unknown>)[createCluster];
  if (!createCluster || typeof original !== 'function') return undefined;

  // A view, not a copy: every other property and method comes from `kafka` through the
  // prototype chain; only the cluster factory its producers call is its own.
  const view = Object.create(kafka) as Kafka & Record<symbol, unknown>;
  view[createCluster] = (...args: unknown[]) => {
    const cluster = (original as (...a: unknown[]) => KafkajsCluster)(...args);
    cacheCoordinatorLookups(cluster, ttlMs);
    return cluster;
  };
  return view;
}

/** The part of kafkajs's (untyped, internal) Cluster this file touches. */
export interface KafkajsCluster {
  findGroupCoordinatorMetadata(query: { groupId: string; coordinatorType?: number }): Promise<unknown>;
  refreshMetadata(...args: unknown[]): Promise<unknown>;
}

/** Replaces the cluster's coordinator lookup with a cached one (exported for its unit test). */
export function cacheCoordinatorLookups(cluster: KafkajsCluster, ttlMs: number, now: () => number = Date.now): void {
  const lookUp = cluster.findGroupCoordinatorMetadata.bind(cluster);
  const refresh = cluster.refreshMetadata.bind(cluster);
  const found = new Map<string, { metadata: Promise<unknown>; expiresAt: number }>();
  // kafkajs's findGroupCoordinator calls this.findGroupCoordinatorMetadata, so an own property
  // of the instance takes its place there.
  cluster.findGroupCoordinatorMetadata = (query) => {
    const key = `${query.coordinatorType ?? 0}:${query.groupId}`;
    const at = now();
    const hit = found.get(key);
    if (hit && hit.expiresAt > at) return hit.metadata;
    const metadata = lookUp(query);
    found.set(key, { metadata, expiresAt: at + ttlMs });
    // A failed lookup is never served from the cache.
    metadata.catch(() => {
      if (found.get(key)?.metadata === metadata) found.delete(key);
    });
    return metadata;
  };
  cluster.refreshMetadata = (...args) => {
    found.clear();
    return refresh(...args);
  };
}
