import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a route of the test document host does with a request (the n-th to that path, from 0). */
export type Route = (request: IncomingMessage, response: ServerResponse, n: number) => void;

/**
 * A partner's document host on loopback: routes by path, each request counted, so a test can
 * say how often a document was asked for.
 */
export class DocumentHost {
  private readonly hits = new Map<string, number>();
  private readonly routes = new Map<string, Route>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<DocumentHost> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const host = new DocumentHost(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => host.serve(request, response));
    return host;
  }

  /** Serves `route` at `path` and returns the document's URL. */
  route(path: string, route: Route): string {
    this.routes.set(path, route);
    return `${this.url}${path}`;
  }

  /** Requests made for `path` so far. */
  hitsOf(path: string): number {
    return this.hits.get(path) ?? 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private serve(request: IncomingMessage, response: ServerResponse): void {
    const path = new URL(request.url ?? '/', this.url).pathname;
    const n = this.hitsOf(path);
    this.hits.set(path, n + 1);
    const route = this.routes.get(path);
    if (!route) return void response.writeHead(404).end();
    route(request, response, n);
  }
}

/** A route answering 200 with `body` (after `delayMs`). */
export function bytes(body: Buffer, contentType = 'application/pdf', delayMs = 0): Route {
  return (_request, response) => {
    setTimeout(() => response.writeHead(200, { 'content-type': contentType, 'content-length': body.length }).end(body), delayMs);
  };
}

/** A route answering `status` with a short body. */
export function status(code: number, headers: Record<string, string> = {}): Route {
  return (_request, response) => void response.writeHead(code, headers).end(`status ${code}`);
}

/** A route answering 200 and then sending one byte every `everyMs`, for ever (until the client gives up). */
export function slowDrip(everyMs: number): Route {
  return (request, response) => {
    response.writeHead(200, { 'content-type': 'application/pdf' });
    const timer = setInterval(() => response.write('x'), everyMs);
    request.socket.once('close', () => clearInterval(timer));
  };
}

/** A route that never answers. */
export function hang(): Route {
  return () => undefined;
}

/** `n` bytes a test can recognise. */
export function documentBytes(label: string, n: number): Buffer {
  const unit = Buffer.from(`${label}|`);
  return Buffer.concat(Array.from({ length: Math.ceil(n / unit.length) }, () => unit)).subarray(0, n);
}
