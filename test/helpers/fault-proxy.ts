import net from 'node:net';

/**
 * A TCP proxy between Kafka clients and one broker that can misbehave on purpose, so that fault
 * tests judge any client the same way (nothing in the client is tapped or replaced):
 * - `dropProduceAnswers(n)`: the next n Produce requests reach the broker, but each connection that
 *   carried one is closed at the first byte of its answer (the broker wrote the records; the client
 *   never hears of it);
 * - `delayEndTxnAnswers(ms, forMs)`: the next EndTxn request (a transaction's commit or abort), and
 *   every other within `forMs` after it, reaches the broker, which ends the transaction, but its answer, and
 *   every later answer on its connection (answers come in order), reaches the client only `ms`
 *   later: a slow coordinator;
 * - `stall()` / `resume()`: bytes stop flowing both ways (connections stay open) until resumed;
 * - `cut()`: every open connection is closed at once (new ones are accepted).
 * The broker must advertise the proxy's port (see proxied-broker.ts), so that every connection a
 * client makes goes through it.
 */
export class FaultProxy {
  private readonly server: net.Server;
  private readonly links = new Set<Link>();
  private produceAnswersToDrop = 0;
  /** The EndTxn answers to hold back: how long, for how long after the first, and until when (epoch ms, once the first came). */
  private endTxnDelay: { ms: number; forMs: number; until?: number } | undefined;
  private stalled = false;
  /** How many Produce answers were dropped so far. */
  droppedProduceAnswers = 0;
  /** How many EndTxn answers were delayed so far. */
  delayedEndTxnAnswers = 0;

  private constructor(
    readonly port: number,
    server: net.Server,
  ) {
    this.server = server;
  }

  /** Listens on `port` (0: any free one) and forwards every connection to 127.0.0.1:`targetPort`. */
  static async start(port: number, targetPort: () => number): Promise<FaultProxy> {
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host: '127.0.0.1' }, resolve);
    });
    const proxy = new FaultProxy((server.address() as net.AddressInfo).port, server);
    server.on('connection', (client) => proxy.accept(client, targetPort()));
    return proxy;
  }

  dropProduceAnswers(count: number): void {
    this.produceAnswersToDrop += count;
  }

  delayEndTxnAnswers(ms: number, forMs = 0): void {
    this.endTxnDelay = { ms, forMs };
  }

  stall(): void {
    this.stalled = true;
    for (const link of this.links) link.pause();
  }

  resume(): void {
    this.stalled = false;
    for (const link of this.links) link.resume();
  }

  cut(): void {
    for (const link of this.links) link.close();
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket, targetPort: number): void {
    const broker = net.connect({ port: targetPort, host: '127.0.0.1' });
    const link = new Link(client, broker, {
      produceRequested: () => {
        if (this.produceAnswersToDrop === 0) return false;
        this.produceAnswersToDrop -= 1;
        return true;
      },
      answerDropped: () => (this.droppedProduceAnswers += 1),
      endTxnRequested: () => {
        const delay = this.endTxnDelay;
        if (!delay || Date.now() > (delay.until ??= Date.now() + delay.forMs)) return undefined;
        this.delayedEndTxnAnswers += 1;
        return delay.ms;
      },
    });
    this.links.add(link);
    link.closed.then(
      () => this.links.delete(link),
      () => this.links.delete(link),
    );
    if (this.stalled) link.pause();
  }
}

/** Kafka's api keys of a Produce request and of an EndTxn request. */
const PRODUCE = 0;
const END_TXN = 26;

interface LinkFaults {
  /** A Produce request passed: true if its answer is to be dropped. */
  produceRequested: () => boolean;
  answerDropped: () => void;
  /** An EndTxn request passed: how long to hold its answer back, if at all. */
  endTxnRequested: () => number | undefined;
}

/** One client connection and its connection to the broker. */
class Link {
  readonly closed: Promise<void>;
  /** Correlation ids of Produce requests whose answers are to be dropped. */
  private readonly doomed = new Set<number>();
  /** Correlation ids of EndTxn requests whose answers are held back, with how long. */
  private readonly delayed = new Map<number, number>();
  /** Answers held back (with every answer after them), until their delay is over. */
  private held: Buffer[] | undefined;
  private fromClient = Buffer.alloc(0);
  private fromBroker = Buffer.alloc(0);

  constructor(
    private readonly client: net.Socket,
    private readonly broker: net.Socket,
    private readonly faults: LinkFaults,
  ) {
    this.closed = new Promise((resolve) => {
      let open = 2;
      const ended = () => (--open === 0 ? resolve() : this.close());
      client.once('close', ended);
      broker.once('close', ended);
    });
    client.on('error', () => this.close());
    broker.on('error', () => this.close());
    client.on('data', (chunk: Buffer) => this.clientData(chunk));
    broker.on('data', (chunk: Buffer) => this.brokerData(chunk));
  }

  pause(): void {
    this.client.pause();
    this.broker.pause();
  }

  resume(): void {
    this.client.resume();
    this.broker.resume();
  }

  close(): void {
    this.client.destroy();
    this.broker.destroy();
  }

  /** Requests pass as they come; each whole one is looked at for a Produce whose answer is doomed. */
  private clientData(chunk: Buffer): void {
    this.broker.write(chunk);
    this.fromClient = Buffer.concat([this.fromClient, chunk]);
    for (let frame = takeFrame(this); frame; frame = takeFrame(this)) {
      // Request header: api_key int16, api_version int16, correlation_id int32.
      const apiKey = frame.readInt16BE(0);
      if (apiKey === PRODUCE && this.faults.produceRequested()) this.doomed.add(frame.readInt32BE(4));
      if (apiKey === END_TXN) {
        const delay = this.faults.endTxnRequested();
        if (delay !== undefined) this.delayed.set(frame.readInt32BE(4), delay);
      }
    }
    function takeFrame(link: Link): Buffer | undefined {
      const frame = nextFrame(link.fromClient);
      if (frame) link.fromClient = link.fromClient.subarray(4 + frame.length);
      return frame;
    }
  }

  /** Answers pass whole; a doomed one closes the connection instead; a delayed one holds back itself and those after it. */
  private brokerData(chunk: Buffer): void {
    this.fromBroker = Buffer.concat([this.fromBroker, chunk]);
    for (let frame = nextFrame(this.fromBroker); frame; frame = nextFrame(this.fromBroker)) {
      const whole = this.fromBroker.subarray(0, 4 + frame.length);
      this.fromBroker = this.fromBroker.subarray(4 + frame.length);
      const correlationId = frame.readInt32BE(0);
      if (this.doomed.delete(correlationId)) {
        this.faults.answerDropped();
        this.close();
        return;
      }
      const delay = this.delayed.get(correlationId);
      if (delay !== undefined && !this.held) {
        this.delayed.delete(correlationId);
        const held: Buffer[] = (this.held = []);
        setTimeout(() => {
          this.held = undefined;
          for (const answer of held) this.client.write(answer);
        }, delay).unref();
      }
      if (this.held) this.held.push(whole);
      else this.client.write(whole);
    }
  }
}

/** The first whole size-prefixed frame of `buffer` (without its size), if it holds one. */
function nextFrame(buffer: Buffer): Buffer | undefined {
  if (buffer.length < 4) return undefined;
  const size = buffer.readInt32BE(0);
  return buffer.length >= 4 + size ? buffer.subarray(4, 4 + size) : undefined;
}
