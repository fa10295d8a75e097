/*
 * Natural batching of one kind of statement: what is asked while the store is busy with earlier
 * statements goes together into the next one. Idle, a request's statement leaves at once (no
 * linger, so no added latency); under load each statement and each commit (each WAL flush) carries
 * many requests' rows, so the store's work per webhook falls as the rate rises, as a Kafka
 * producer's batches do. `bench:ingress` measured one statement per claim and one per completion
 * at 2 commits per webhook, the PostgreSQL server then using most of a core (docs/benchmarks.md).
 */

/** Runs one statement for `items` and resolves with one result per item, in order. */
export type BatchStatement<I, O> = (items: readonly I[]) => Promise<O[]>;

interface Pending<I, O> {
  item: I;
  resolve: (result: O) => void;
  reject: (error: unknown) => void;
}

export class StatementBatches<I, O> {
  private queue: Array<Pending<I, O>> = [];
  private running = 0;

  /**
   * @param statement one statement (and commit) for a batch
   * @param maxInFlight statements running at once: two lets one batch fill while another commits
   * @param maxItems most items in one statement (bounds its size and its time)
   */
  constructor(
    private readonly statement: BatchStatement<I, O>,
    private readonly maxInFlight = 2,
    private readonly maxItems = 500,
  ) {}

  /** `item`'s result, from the next statement that has room for it. */
  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.flush();
    });
  }

  private flush(): void {
    while (this.running < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxItems);
      this.running++;
      void this.run(batch).finally(() => {
        this.running--;
        this.flush();
      });
    }
  }

  private async run(batch: Array<Pending<I, O>>): Promise<void> {
    try {
      const results = await this.statement(batch.map((p) => p.item));
      batch.forEach((p, i) => p.resolve(results[i]!));
    } catch (error) {
      // Every request of the batch fails as the statement did (the store unavailable: 503 to each).
      for (const p of batch) p.reject(error);
    }
  }
}
