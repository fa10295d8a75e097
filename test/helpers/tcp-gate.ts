import net from 'node:net';

/**
 * A plain TCP forwarder to 127.0.0.1:`targetPort` that a test can close and open again on the same
 * port: to its clients the server behind it is stopped (connections reset, new ones refused) and
 * back, without stopping the server other tests share. Bytes pass untouched (unlike FaultProxy,
 * which reads Kafka's framing), so it suits any protocol, e.g. PostgreSQL's.
 */
export class TcpGate {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  private hung = false;
  port = 0;

  constructor(private readonly targetPort: number) {}

  /** Listens (on the port it had before, once it has one) and forwards each connection. */
  async open(): Promise<void> {
    const server = net.createServer((client) => {
      if (this.hung) return void this.hold(client);
      const target = net.connect({ port: this.targetPort, host: '127.0.0.1' });
      for (const socket of [client, target]) {
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
        socket.on('error', () => (client.destroy(), target.destroy()));
      }
      client.pipe(target).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port: this.port, host: '127.0.0.1' }, resolve);
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  /**
   * The server behind stops answering without closing anything (a hung PostgreSQL): open connections
   * stay open and carry nothing more, new ones are accepted and never answered.
   */
  hang(): void {
    this.hung = true;
    for (const socket of this.sockets) socket.unpipe().pause();
  }

  private hold(client: net.Socket): void {
    this.sockets.add(client);
    client.once('close', () => this.sockets.delete(client));
    client.on('error', () => client.destroy());
    client.pause();
  }

  /** Refuses new connections and resets the open ones. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}
