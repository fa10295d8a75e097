/*
 * One check-and-send at a time per delivery within this replica: a retry now (read from
 * callback-requests) and its delivery's record in a retry tier (another topic, so another lane of
 * the group member) may be handled at the same moment, and each would find the delivery not yet
 * delivered and send it. Queued behind each other here, the second finds the first's "delivered" in
 * the state store and sends nothing. Across replicas the two records may still meet (the topics'
 * partitions are assigned apart): docs/outbound.md says what remains.
 */
export class SendsInFlight {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `task` once every task of this delivery started before it here has settled. */
  async one<T>(deliveryId: string, task: () => Promise<T>): Promise<T> {
    const before = this.tails.get(deliveryId) ?? Promise.resolve();
    const run = before.then(task);
    const tail = run.catch(() => undefined);
    this.tails.set(deliveryId, tail);
    try {
      return await run;
    } finally {
      // The last of its delivery: nothing waits behind it, so the entry goes (the map stays as small as what is in flight).
      if (this.tails.get(deliveryId) === tail) this.tails.delete(deliveryId);
    }
  }
}
