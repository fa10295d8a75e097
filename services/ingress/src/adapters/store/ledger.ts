import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { StoreUnavailableError, describeError } from '@hookstream/errors';
import { asStoreError, openStateStore, sleep, type Logger, type StateStore } from '@hookstream/runtime';
import type { AbandonedClaimSearch } from '../kafka/abandoned-claim-search';
import type { ClaimResult, Completion, RequestIdLedger } from '../../domain/request-id-ledger';
import { completionOf, readRow, releaseClaim, renewAfterSearch, takeOverRow, type RowState } from './ledger-rows';
import { ledgerMigrations, type LedgerTables } from './ledger-tables';
import { insertClaims, recordCompletions, type ClaimItem, type CompletionItem } from './ledger-writes';
import { StatementBatches } from './statement-batches';
import { CLAIM_WRITE_WINDOW_MS, COMPLETION_WINDOW_MS, MAX_SEARCHING, MAX_WAITING, POLL_MAX_MS, POLL_MS } from './ledger-limits';

export { MAX_SEARCHING, MAX_WAITING } from './ledger-limits';

export interface LedgerOptions {
  /** postgres:// URL of the state store (DATABASE_URL). */
  url: string;
  /** The topics' namespace (TOPIC_PREFIX): the ledger's schema in the store. */
  namespace: string;
  /** Connections per replica (DATABASE_CONNECTIONS). */
  maxConnections: number;
  /** This replica, named in its claims. */
  instance: string;
  logger: Logger;
  /** A claim not completed within this long may be taken over by a later claim. */
  claimTtlMs: number;
  /** How long a key is remembered (from its first claim). */
  retentionMs: number;
  /** Finds an abandoned claimant's event on partner-events (takeovers only). */
  search: AbandonedClaimSearch;
  /** How often the retention's delete runs. Default 60,000 ms. */
  sweepEveryMs?: number;
}

/** Rows one retention delete removes: short statements, so concurrent sweeps and claims never wait long. */
const SWEEP_BATCH = 1_000;

/**
 * The request_id ledger, one row per (partner, request_id) in the PostgreSQL state store that every
 * ingress replica shares (ledger-tables.ts). The first insert of a key wins it; the winner writes
 * the partner event (acks=all), then records the completion (the answer's fields) on its row. A
 * claim not completed within the claim TTL (its replica died) is taken over by a conditional update
 * that only one request can make; since that replica may have died between its event and its
 * completion, the taker first searches partner-events for that event (AbandonedClaimSearch) and
 * loses if it is there.
 *
 * What it costs: one row per request_id within the retention, in PostgreSQL (about 310 bytes with
 * its index entries, measured); in a replica's heap nothing that grows. A new key costs its row in
 * an insert before its event is written, and in an update after its answer (the completion); the
 * claims (and the completions) asked while earlier ones are being written share one statement and
 * one commit (StatementBatches). A repeated key costs an insert that does nothing and one select. With the store unavailable, every
 * method throws StoreUnavailableError (answered 503, never 200 or 500).
 */
export class IdempotencyLedger implements RequestIdLedger {
  private store: StateStore<LedgerTables> | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  /** Completions on their way (recorded after the answer): stop() lets them finish. */
  private readonly completing = new Set<Promise<boolean>>();
  private readonly logger: Logger;
  private waiting = 0;
  private searching = 0;
  /** Claims and completions, each kind gathered into one statement while the store is busy. */
  private readonly claims = new StatementBatches<ClaimItem, boolean>(
    (items) => this.query('claim request_ids', (db) => insertClaims(db, items, this.options.instance, this.options.retentionMs)),
    (why) => new StoreUnavailableError(`a request_id could not be claimed: ${why}`),
  );
  private readonly completions = new StatementBatches<CompletionItem, boolean>(
    (items) => this.query('record completions', (db) => recordCompletions(db, items)),
    (why) => new StoreUnavailableError(`a completion could not be recorded: ${why}`),
  );

  constructor(private readonly options: LedgerOptions) {
    this.logger = options.logger.child({ module: 'idempotency-ledger' });
  }

  /** Opens the store and migrates its table; then the retention's delete runs periodically. */
  async start(): Promise<void> {
    this.store = await openStateStore<LedgerTables>({
      url: this.options.url,
      service: 'ingress',
      namespace: this.options.namespace,
      migrations: ledgerMigrations,
      maxConnections: this.options.maxConnections,
      logger: this.logger,
    });
    this.sweeper = setInterval(() => void this.deleteExpired(), this.options.sweepEveryMs ?? 60_000);
    this.sweeper.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.allSettled([...this.completing]);
    const store = this.store;
    this.store = undefined;
    await store?.close();
  }

  /** Readiness: the store answers a query. */
  async check(): Promise<void> {
    this.db('be checked');
    await this.store!.check();
  }

  /** Claims (partner, request_id) for the payload `fingerprint`. */
  async claim(partnerId: string, requestId: string, fingerprint: string, timeoutMs: number): Promise<ClaimResult> {
    const claimId = randomUUID();
    const asked = Date.now();
    const won = await this.claims.submit({ partnerId, requestId, claimId, fingerprint }, asked + CLAIM_WRITE_WINDOW_MS);
    if (won && Date.now() - asked > CLAIM_WRITE_WINDOW_MS) {
      // Too late to write under this claim: its TTL counts from its statement's start, and the write
      // (up to the write timeout) must end within it (config.ts). Given back, since nothing was written.
      await this.release(partnerId, requestId, claimId);
      throw new StoreUnavailableError(`claiming a request_id took ${Date.now() - asked} ms`);
    }
    if (won) return { kind: 'won', claimId };
    const row = await this.rowOf(partnerId, requestId);
    // Deleted by the retention between the two statements: as if another claim had come first.
    if (!row) return { kind: 'lost' };
    if (row.completed) return { kind: 'completed', completion: completionOf(requestId, row) };
    if (!row.abandoned)
      return { kind: 'claimed', claim: { claimId: row.claim_id, fingerprint: row.fingerprint, instance: row.claimant_instance } };
    // Left for another taker (or a later retry) while this replica searches enough already.
    if (this.searching >= MAX_SEARCHING) return { kind: 'unchecked', why: 'too many abandoned claims being searched at once' };
    this.searching++;
    try {
      return await this.takeOver(partnerId, requestId, fingerprint, row, claimId, timeoutMs);
    } finally {
      this.searching--;
    }
  }

  /** Records the answer of the winning claim `claimId` once its event is durable; false if its claim was taken over meanwhile. */
  complete(partnerId: string, requestId: string, claimId: string, completion: Completion): Promise<boolean> {
    const completing = this.completions.submit({ partnerId, requestId, claimId, completion }, Date.now() + COMPLETION_WINDOW_MS);
    this.completing.add(completing);
    void completing.finally(() => this.completing.delete(completing)).catch(() => undefined);
    return completing;
  }

  /** The key's completion once recorded, or undefined after `timeoutMs` (or when its row is gone). */
  async waitForCompletion(partnerId: string, requestId: string, timeoutMs: number): Promise<Completion | undefined> {
    const deadline = Date.now() + timeoutMs;
    // Enough waiting already: one look, no wait.
    const waits = this.waiting < MAX_WAITING;
    if (waits) this.waiting++;
    try {
      for (let pause = POLL_MS; ; pause = Math.min(POLL_MAX_MS, Math.round(pause * 1.5))) {
        const row = await this.rowOf(partnerId, requestId);
        if (!row) return undefined;
        if (row.completed) return completionOf(requestId, row);
        if (!waits || Date.now() + pause > deadline) return undefined;
        await sleep(pause);
      }
    } finally {
      if (waits) this.waiting--;
    }
  }

  /**
   * Deletes rows past their retention, oldest first, in batches; returns how many. Safe on every
   * replica at once: each batch skips rows another sweep has locked.
   */
  async deleteExpired(maxBatches = 100): Promise<number> {
    let removed = 0;
    try {
      for (let batch = 0; batch < maxBatches; batch++) {
        const deleted = await this.query('delete expired request_ids', async (db) => {
          const { numAffectedRows } = await sql`
            delete from ingress_request_ledger
            where (partner_id, request_id) in (
              select partner_id, request_id from ingress_request_ledger
              where expires_at < now() order by expires_at limit ${SWEEP_BATCH}
              for update skip locked)`.execute(db);
          return Number(numAffectedRows ?? 0n);
        });
        removed += deleted;
        if (deleted < SWEEP_BATCH) break;
      }
    } catch (error) {
      this.logger.warn({ err: describeError(error), removed }, 'expired request_ids not deleted; next sweep tries again');
    }
    if (removed > 0) this.logger.debug({ removed }, 'expired request_ids deleted');
    return removed;
  }

  /**
   * Takes over the abandoned claim `row`: only one request's conditional update can succeed. The
   * winner searches partner-events for the abandoned claimant's event and, if there, records it as
   * the completion and answers from it; if the search cannot be made, the next taker searches the
   * same span again (unchecked_since stays).
   */
  private async takeOver(
    partnerId: string,
    requestId: string,
    fingerprint: string,
    row: RowState,
    claimId: string,
    timeoutMs: number,
  ): Promise<ClaimResult> {
    const { instance, claimTtlMs } = this.options;
    const taken = await this.query('take over an abandoned claim', (db) =>
      takeOverRow(db, { partnerId, requestId, claimId, fingerprint }, row.claim_id, instance, claimTtlMs),
    );
    if (!taken) return { kind: 'lost' };
    this.logger.info({ partnerId, requestId, abandonedBy: row.claimant_instance }, 'abandoned request_id claim taken over');
    let found: Completion | undefined;
    try {
      found = await this.options.search.find(partnerId, requestId, row.unchecked_ms, row.claimed_ms + this.options.claimTtlMs, timeoutMs);
    } catch (error) {
      return { kind: 'unchecked', why: describeError(error) };
    }
    if (found) {
      await this.complete(partnerId, requestId, claimId, found);
      return { kind: 'completed', completion: found };
    }
    // Searched: a later taker need not search before this claim's taking. The claim's time starts
    // again now, as the write does: the search may have taken seconds of the TTL, and the write
    // must end within it (config.ts).
    const renewed = await this.query('record a search', (db) => renewAfterSearch(db, partnerId, requestId, claimId));
    return renewed ? { kind: 'won', claimId } : { kind: 'lost' };
  }

  /** Deletes a claim under which nothing was written (a failure is left to the claim TTL). */
  private async release(partnerId: string, requestId: string, claimId: string): Promise<void> {
    await this.query('release a claim', (db) => releaseClaim(db, partnerId, requestId, claimId)).catch(() => undefined);
  }

  private async rowOf(partnerId: string, requestId: string): Promise<RowState | undefined> {
    return this.query('read a request_id', (db) => readRow(db, partnerId, requestId, this.options.claimTtlMs));
  }

  /** Runs `run` on the store; a store that cannot answer throws StoreUnavailableError. */
  private async query<T>(doing: string, run: (db: StateStore<LedgerTables>['db']) => Promise<T>): Promise<T> {
    const db = this.db(doing);
    try {
      return await run(db);
    } catch (error) {
      throw asStoreError(error, doing);
    }
  }

  private db(doing: string): StateStore<LedgerTables>['db'] {
    if (!this.store) throw new StoreUnavailableError(`the request_id ledger is not open: could not ${doing}`);
    return this.store.db;
  }
}
