import net from 'node:net';
import { ConfigError } from '@hookstream/errors';
import { freePort } from '@hookstream/runtime';

/** Resolves true when nothing listens on host:port. */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * `preferred` when it is free, else a free port from the OS. Ports already handed out in this
 * call chain are skipped, so several picks in a row never collide.
 */
export async function pickPort(preferred: number | undefined, taken: Set<number>, host = '127.0.0.1'): Promise<number> {
  if (preferred !== undefined && preferred > 0 && !taken.has(preferred) && (await isPortFree(preferred, host))) {
    taken.add(preferred);
    return preferred;
  }
  for (;;) {
    const port = await freePort(host);
    if (!taken.has(port)) {
      taken.add(port);
      return port;
    }
  }
}

/** Resolves true once something accepts TCP connections on host:port. */
export function canConnect(port: number, host = '127.0.0.1', timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Which ports `stack up` and `start` take: their defaults (9092, 8081, 8080, …) when free, or 'random' free ones. */
export type PortPreference = 'defaults' | 'random';

/** Help text for HOOKSTREAM_PORTS, shown by the commands that read it. */
export const PORTS_HELP = `
Environment:
  HOOKSTREAM_PORTS=random  take free ports instead of the defaults, so a stack or services
                           already on the usual ports are never touched (tests do this)`;

/** HOOKSTREAM_PORTS: unset or "defaults" for the usual ports, "random" for free ones. */
export function portPreference(env: NodeJS.ProcessEnv = process.env): PortPreference {
  const value = env.HOOKSTREAM_PORTS?.trim() ?? '';
  if (value === '' || value === 'defaults') return 'defaults';
  if (value === 'random') return 'random';
  throw new ConfigError([{ variable: 'HOOKSTREAM_PORTS', message: `must be "random" or "defaults", not "${value}"` }]);
}
