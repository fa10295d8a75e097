import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export interface RunningHttpServer {
  /** Base URL, e.g. http://127.0.0.1:8080 (the real port when 0 was asked for). */
  url: string;
  port: number;
  server: Server;
  /** Stops accepting connections and waits for in-flight requests; closes idle keep-alive sockets. */
  close: () => Promise<void>;
}

/** Starts `app` on host:port (0 = a free port) and resolves once it listens. */
export function startHttpServer(app: Express, settings: { host: string; port: number }): Promise<RunningHttpServer> {
  return new Promise((resolve, reject) => {
    const server = app.listen(settings.port, settings.host);
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      const host = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
      resolve({
        url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
        port,
        server,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            server.closeIdleConnections();
          }),
      });
    });
  });
}
