/**
 * The sequence numbers of one idempotent producer, kept truthful when a send fails without knowing
 * whether the broker wrote it.
 *
 * An idempotent producer numbers its records per partition; the broker writes a batch whose first
 * sequence follows the last one it wrote, answers a batch it already wrote (same first and last
 * sequence) with that write's offset without writing again, and refuses a gap. When a Produce
 * request fails without an answer (the connection closed, the broker died, the request timed out)
 * the broker may or may not have written it. kafkajs then hands the numbers back for the next
 * batch, which is right only if nothing was written: if it was, the next batch carries the same
 * numbers and is acknowledged as a duplicate, unwritten. A webhook answered 200 that never reached
 * partner-events (the broker-outage and 3-broker SIGKILL tests caught it; confluentinc/librdkafka#2188
 * is the same fault in another client).
 *
 * So the send keeps a batch's numbers across its retries: the retry of a write the broker made is
 * answered as a duplicate, with the offset of the first write, and the retry of one it did not make
 * is written. If the send gives up with a write in doubt, the numbers that follow are in doubt too
 * (a gap or not), so before this producer sends again it takes a new producer id, whose numbers start
 * at zero: a record may then be written twice, never acknowledged and lost.
 *
 * A transactional producer is not renewed here (kafkajs allows a new id only between
 * transactions): its failed send fails the transaction, which the caller aborts, and Hookstream's
 * callers then replace the producer. Kept numbers are safe for it too: the next write after a gap is
 * refused (OUT_OF_ORDER_SEQUENCE_NUMBER), never taken for a duplicate.
 */

/** What this uses of kafkajs's (internal) EOS manager. */
export interface SequencedProducer {
  isInitialized(): boolean;
  isTransactional(): boolean;
  initProducerId(): Promise<void>;
}

export class ProducerSequences {
  private sending = 0;
  private inDoubt = false;
  private renewal: Promise<void> | undefined;
  private readonly idle: Array<() => void> = [];

  constructor(private readonly producer: SequencedProducer) {}

  /** Waits, if this producer's numbers are in doubt, until it has a new producer id; then counts a send in. */
  async beginSend(): Promise<void> {
    while (this.inDoubt) {
      this.renewal ??= this.renew().finally(() => (this.renewal = undefined));
      await this.renewal;
    }
    this.sending += 1;
  }

  /** Counts a send out; `leftInDoubt` when it failed with a write whose outcome is unknown. */
  endSend(leftInDoubt: boolean): void {
    this.sending -= 1;
    if (leftInDoubt && this.producer.isInitialized() && !this.producer.isTransactional()) this.inDoubt = true;
    if (this.sending === 0) for (const wake of this.idle.splice(0)) wake();
  }

  /**
   * A new producer id once no send is under way (kafkajs's renewal also replaces the per-broker
   * locks, which a send in flight holds). Fails while Kafka is unreachable: that send fails, and
   * the next one tries again.
   */
  private async renew(): Promise<void> {
    while (this.sending > 0) await new Promise<void>((wake) => this.idle.push(wake));
    await this.producer.initProducerId();
    this.inDoubt = false;
  }
}

const perProducer = new WeakMap<object, ProducerSequences>();

/** The one ProducerSequences of a kafkajs EOS manager (a transactional producer makes a send function per transaction). */
export function producerSequencesOf(eosManager: SequencedProducer): ProducerSequences {
  let sequences = perProducer.get(eosManager);
  if (!sequences) {
    sequences = new ProducerSequences(eosManager);
    perProducer.set(eosManager, sequences);
  }
  return sequences;
}
