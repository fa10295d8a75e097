/* The bench's document host: every path answers `size` bytes, unique per path (so the content-addressed store keeps each). */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export class DocumentServer {
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** Serves one shared body of `size` bytes, its first 64 bytes replaced by the request's path. */
  static async start(size: number): Promise<DocumentServer> {
    const body = Buffer.alloc(size, 'hookstream document bench ');
    const server = createServer((request, response) => {
      const head = Buffer.alloc(64, ' ');
      head.write(request.url ?? '/');
      response.writeHead(200, { 'content-type': 'application/pdf', 'content-length': size });
      response.write(head);
      response.end(body.subarray(64));
    });
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new DocumentServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
