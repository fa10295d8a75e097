/*
 * The newest policy version emitted per (partner, endpoint, policy), for latest-wins ordering: an
 * older version still waiting in a retry tier (or arriving late) is not sent once a newer one was
 * emitted.
 *
 * Where the state lives: in PostgreSQL (the state store, table latest_policy_version), shared by
 * every sender replica. The consumer of callback-requests records each batch it reads in one
 * statement, before any of the batch's records is dispatched (recordBatch, from the batch's headers:
 * partner, endpoint, version; the key is the policy number; values are never decoded). Every check,
 * of callback-requests and the retry tiers alike, asks the table; the checks made in the same turn
 * of the event loop (a batch's records start together) go as one query. Cost: one row per (endpoint,
 * policy) changed within the window, in PostgreSQL (measured: about 145 bytes with its indexes for
 * short ids); a batch of 100 adds about 12 ms at the median to its records' path (upsert and check,
 * local PostgreSQL). Nothing in a replica's heap that grows, and no start-up read: a replica is
 * ready once its consumers joined.
 *
 * Why the main topic's lag cannot break latest-wins. A version is in the table once the
 * callback-requests group has read it, no sooner (the replaced design had every replica read the
 * topic with a reader of its own, which lagged too, but independently of the group). Cases:
 * - Newer v2 still unread (the group lags) when an older v1 comes due in a tier: v1 is sent, as the
 *   replaced design did whenever its reader had not reached v2. v2 is recorded before it is
 *   dispatched, so the partner gets v2 after v1 (unless v1's attempt is still in flight: last case
 *   below): a wasted send, not a wrong final state. The lag never lets v2 be skipped, since a record
 *   is skipped only for a version greater than its own, and never lets v1 pass a check made after
 *   v2 was recorded.
 * - v1 and v2 in one partition of callback-requests (one policy's records share a key): one batch →
 *   v1 is skipped (the batch was recorded first); different batches → v1 is sent, then v2 (one key's
 *   records go one after another). Either way v2 last.
 * - A record read again (a rewind, a rebalance, a replay put back on callback-requests) writes an
 *   older version: `greatest` keeps the newer, so a replayed superseded record is skipped.
 * - A check and the attempt it allows are not atomic (nor were they): a tier's v1 still in its
 *   attempt when v2 is sent can reach the partner after v2. The lag lengthens the time in which v1
 *   can pass its check before v2 is recorded (the replaced reader was usually ahead of the group), so
 *   this race, not new, gets a little likelier while the group lags. The payload carries the version.
 * - Rows are kept for windowMs (twice the tiers' span, at least a day) after a version was last
 *   read: a record older than that is in no tier (dead letters: `hookstream dlq replay` reads its
 *   own window with @hookstream/contract's EmittedPolicyVersions).
 *
 * The store unavailable: recordBatch and isSuperseded reject (StoreUnavailableError), never answer
 * "not superseded". The consumer then reads the partition again from its last commit after a pause,
 * as when Kafka or the registry is away: no record is lost or skipped for it, and /readyz fails
 * (check `state-store`).
 */
import { setImmediate } from 'node:timers';
import { sql } from 'kysely';
import { CallbackRequestHeaders, CallbackTriggers } from '@hookstream/contract';
import { StoreUnavailableError, describeError } from '@hookstream/errors';
import { asStoreError, type Logger, type StateStore } from '@hookstream/runtime';
import { type IHeaders, type KafkaMessage } from '@hookstream/kafka';
import type { VersionTables } from './version-table';

export interface LatestVersionsOptions {
  /** Opens the state store with versionMigrations (start() retries it until it opens). */
  openStore: () => Promise<StateStore<VersionTables>>;
  logger: Logger;
  /** How long a row is kept after a version was last read: the longest a record can wait in the retry tiers (their delays' sum), with a margin. */
  windowMs: number;
  /** How often old rows are deleted, in ms. Default 60,000. */
  sweepIntervalMs?: number;
  /** Also swept with the versions, with the same cutoff (delivered-callbacks.ts); resolves with how many rows it deleted. */
  sweepAlso?: (cutoff: number) => Promise<number>;
  /** Rows deleted per statement by a sweep (it repeats until fewer are left). Default 1,000. */
  sweepBatchSize?: number;
  now?: () => number;
}

/** Most (endpoint, policy) pairs asked in one query; a larger turn's checks go as several. */
const MAX_CHECKS_PER_QUERY = 1000;

interface Check {
  partnerId: string;
  endpointId: string;
  policyNumber: string;
  version: number;
  resolve: (superseded: boolean) => void;
  reject: (error: unknown) => void;
}

export class LatestVersions {
  private store: StateStore<VersionTables> | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> = Promise.resolve();
  private queued: Check[] = [];
  private readonly logger: Logger;
  private readonly now: () => number;
  private markOpen: () => void = () => undefined;
  /** Resolves once the store is open (the consumers start after it). */
  readonly whenReady = new Promise<void>((resolve) => (this.markOpen = resolve));

  constructor(private readonly options: LatestVersionsOptions) {
    this.logger = options.logger.child({ module: 'latest-versions' });
    this.now = options.now ?? Date.now;
  }

  async start(): Promise<void> {
    this.store = await this.options.openStore();
    this.sweeper = setInterval(() => void this.sweep(), this.options.sweepIntervalMs ?? 60_000);
    this.sweeper.unref();
    this.markOpen();
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    await this.sweeping;
    const store = this.store;
    this.store = undefined;
    await store?.close();
  }

  /** Readiness: resolves while the store answers. */
  async check(): Promise<void> {
    if (!this.store) throw new Error('the state store is not open');
    await this.store.check();
  }

  /**
   * Records the versions a batch of callback-requests carries, in one statement. A record without
   * the headers is left out (the policy-status-consumer writes them on every record; the replaced
   * reader skipped such records too).
   */
  async recordBatch(messages: readonly KafkaMessage[]): Promise<void> {
    const newest = new Map<string, { partnerId: string; endpointId: string; policyNumber: string; version: number }>();
    for (const message of messages) {
      // A test is never ordered against real callbacks (domain/requested-attempt.ts).
      if (headerText(message.headers, CallbackRequestHeaders.trigger) === CallbackTriggers.test) continue;
      const entry = versionOf(message);
      if (!entry) continue;
      const key = keyOf(entry.partnerId, entry.endpointId, entry.policyNumber);
      // One row once per statement (ON CONFLICT cannot update a row twice), with the batch's newest version.
      if ((newest.get(key)?.version ?? -Infinity) < entry.version) newest.set(key, entry);
    }
    if (newest.size === 0) return;
    // In key order: two statements over the same rows (a partition's old and new owner) lock them in one order, not into a deadlock.
    const rows = [...newest.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
    const now = this.now();
    try {
      await sql`
        insert into latest_policy_version (partner_id, endpoint_id, policy_number, version, seen_at)
        select p, e, n, v, ${now}::bigint
        from unnest(${rows.map((r) => r.partnerId)}::text[], ${rows.map((r) => r.endpointId)}::text[],
                    ${rows.map((r) => r.policyNumber)}::text[], ${rows.map((r) => r.version)}::bigint[]) as t(p, e, n, v)
        on conflict (partner_id, endpoint_id, policy_number) do update
          set version = greatest(latest_policy_version.version, excluded.version),
              seen_at = greatest(latest_policy_version.seen_at, excluded.seen_at)`.execute(this.db());
    } catch (error) {
      throw asStoreError(error, 'record the policy versions read');
    }
  }

  /** Whether a newer version than `version` was recorded for this endpoint and policy; rejects when the store cannot say. */
  isSuperseded(partnerId: string, endpointId: string, policyNumber: string, version: number): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queued.push({ partnerId, endpointId, policyNumber, version, resolve, reject });
      // A batch's records start in one turn (and decode from the registry's cache): their checks are asked together.
      if (this.queued.length === 1) setImmediate(() => void this.askQueued());
    });
  }

  /** Deletes the rows not seen within the window, in statements of sweepBatchSize rows; resolves with how many. */
  async sweep(now = this.now()): Promise<number> {
    const cutoff = now - this.options.windowMs;
    const run = this.sweeping.then(async () => (await this.deleteSeenBefore(cutoff)) + (await (this.options.sweepAlso?.(cutoff) ?? 0)));
    this.sweeping = run.then(
      () => undefined,
      () => undefined,
    );
    return run.catch((error: unknown) => {
      this.logger.warn({ err: describeError(error) }, 'old policy versions not deleted; the next sweep tries again');
      return 0;
    });
  }

  private async deleteSeenBefore(cutoff: number): Promise<number> {
    const limit = this.options.sweepBatchSize ?? 1000;
    let deleted = 0;
    for (;;) {
      if (!this.store) return deleted;
      // Bounded statements: a sweep after a long pause never holds the locks of millions of rows at once.
      const result = await sql`
        delete from latest_policy_version where ctid = any (array(
          select ctid from latest_policy_version where seen_at < ${cutoff}::bigint limit ${limit}))`.execute(this.db());
      const count = Number(result.numAffectedRows ?? 0n);
      deleted += count;
      if (count < limit) break;
    }
    if (deleted > 0) this.logger.info({ deleted }, 'policy versions older than the window deleted');
    return deleted;
  }

  private async askQueued(): Promise<void> {
    const checks = this.queued;
    this.queued = [];
    for (let i = 0; i < checks.length; i += MAX_CHECKS_PER_QUERY) {
      const part = checks.slice(i, i + MAX_CHECKS_PER_QUERY);
      try {
        const newest = await this.newestOf(part);
        for (const c of part) c.resolve((newest.get(keyOf(c.partnerId, c.endpointId, c.policyNumber)) ?? -Infinity) > c.version);
      } catch (error) {
        const failure = asStoreError(error, 'read the newest policy versions');
        for (const c of part) c.reject(failure);
      }
    }
  }

  private async newestOf(checks: readonly Check[]): Promise<Map<string, number>> {
    const result = await sql<{ partner_id: string; endpoint_id: string; policy_number: string; version: number }>`
      select v.partner_id, v.endpoint_id, v.policy_number, v.version
      from unnest(${checks.map((c) => c.partnerId)}::text[], ${checks.map((c) => c.endpointId)}::text[],
                  ${checks.map((c) => c.policyNumber)}::text[]) as k(p, e, n)
      join latest_policy_version v on v.partner_id = k.p and v.endpoint_id = k.e and v.policy_number = k.n`.execute(this.db());
    return new Map(result.rows.map((r) => [keyOf(r.partner_id, r.endpoint_id, r.policy_number), Number(r.version)]));
  }

  /** The open store's database; throws StoreUnavailableError while it is not open. */
  db() {
    // Stopped, or not yet open: as unavailable, so a record in flight is read again rather than judged.
    if (!this.store) throw new StoreUnavailableError('the state store is not open');
    return this.store.db;
  }
}

function keyOf(partnerId: string, endpointId: string, policyNumber: string): string {
  return `${partnerId}\n${endpointId}\n${policyNumber}`;
}

/** The (partner, endpoint, policy, version) a callback-requests record carries in its key and headers, if it does. */
function versionOf(message: KafkaMessage) {
  const policyNumber = message.key?.toString('utf8');
  const partnerId = headerText(message.headers, CallbackRequestHeaders.partnerId);
  const endpointId = headerText(message.headers, CallbackRequestHeaders.endpointId);
  const version = Number(headerText(message.headers, CallbackRequestHeaders.policyVersion));
  if (!policyNumber || !partnerId || !endpointId || !Number.isSafeInteger(version)) return undefined;
  return { partnerId, endpointId, policyNumber, version };
}

function headerText(headers: IHeaders | undefined, name: string): string | undefined {
  const value = headers?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}
