import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { StackError } from '@hookstream/errors';
import { generateKeyringValue } from '@hookstream/runtime';
import { REPO_ROOT } from '../paths';
import { isAlive } from './processes';
import { RUN_FILE } from './run-info';

/**
 * This clone's own folder of local state (the stack's data, the demo's documents): under
 * $XDG_STATE_HOME/hookstream (else ~/.local/state/hookstream), one folder per clone, named by the
 * clone's folder and a hash of its path. Two clones on one machine never share a stack, its
 * PostgreSQL or its keys: one's demo key re-issued would revoke the other's.
 */
export function cloneStateRoot(env: NodeJS.ProcessEnv = process.env, repoRoot = REPO_ROOT): string {
  const base = env.XDG_STATE_HOME ?? path.join(env.HOME ?? '/tmp', '.local', 'state');
  const clone = `${path.basename(repoRoot)}-${createHash('sha256').update(path.resolve(repoRoot)).digest('hex').slice(0, 8)}`;
  return path.resolve(base, 'hookstream', clone);
}

/** Where `stack up` keeps the Kafka log, the registry's database and PostgreSQL's data: HOOKSTREAM_STATE_DIR, else this clone's `<cloneStateRoot>/stack`. Always absolute. */
export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HOOKSTREAM_STATE_DIR) return path.resolve(env.HOOKSTREAM_STATE_DIR);
  return path.join(cloneStateRoot(env), 'stack');
}

/** A throwaway state folder for a stack that lives only as long as one run (tests). */
export function makeEphemeralStateDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'hookstream-stack-'));
}

/** Keys the services need for partner secrets, API key hashes and portal tokens, local to one state dir. */
export interface LocalSecrets {
  HOOKSTREAM_SECRETS_KEYS: string;
  HOOKSTREAM_API_KEY_PEPPERS: string;
  HOOKSTREAM_PORTAL_TOKEN_KEYS: string;
}

const SECRET_NAMES: Array<keyof LocalSecrets> = ['HOOKSTREAM_SECRETS_KEYS', 'HOOKSTREAM_API_KEY_PEPPERS', 'HOOKSTREAM_PORTAL_TOKEN_KEYS'];

const SECRETS_FILE = 'secrets.env';

/**
 * The local stack's keys for partner secrets and API key hashes: made once per state dir (so
 * they live and die with the data they protect), in a file only the owner can read. A real
 * deployment gives them from its secret manager instead.
 */
export function localSecrets(stateDir: string): LocalSecrets {
  const file = path.join(stateDir, SECRETS_FILE);
  mkdirSync(stateDir, { recursive: true });
  const existing = existsSync(file) ? parseEnv(readFileSync(file, 'utf8')) : {};
  // A key added in a later version is made beside the ones a state dir already has, never replacing them.
  const missing = SECRET_NAMES.filter((name) => !existing[name]);
  if (missing.length > 0) {
    appendFileSync(file, missing.map((name) => `${name}=${generateKeyringValue('local-1')}\n`).join(''), { mode: 0o600 });
  }
  const values = parseEnv(readFileSync(file, 'utf8'));
  return Object.fromEntries(SECRET_NAMES.map((name) => [name, values[name] ?? ''])) as unknown as LocalSecrets;
}

/** Held while a stack starts from a state dir; holds the pid of the process starting it. */
export const START_LOCK_FILE = 'start.lock';

function lockHolder(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes the state dir's start lock, so two starts on one dir cannot run two brokers on one
 * log (a raw Java stack trace) or leave untracked processes. A lock whose process is gone is
 * stale and taken over. Returns the release function.
 */
export function lockStateDir(stateDir: string): () => void {
  const file = path.join(stateDir, START_LOCK_FILE);
  for (let attempt = 1; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = lockHolder(file);
      // No pid yet: the holder opened the file and is writing it this very moment.
      if (holder === undefined || isAlive(holder) || attempt > 1) {
        throw new StackError(
          `another hookstream${holder ? ` (pid ${holder})` : ''} is starting a stack from ${stateDir}: wait for it to finish` +
            ` (if no such process runs, delete ${file})`,
        );
      }
      rmSync(file, { force: true });
      continue;
    }
    try {
      writeSync(fd, `${process.pid}\n`);
    } finally {
      closeSync(fd);
    }
    return () => {
      if (lockHolder(file) === process.pid) rmSync(file, { force: true });
    };
  }
}

/** What a stack keeps at the top of its state dir: folder or not. */
const STATE_DIR_ENTRIES: Record<string, 'dir' | 'file'> = {
  [RUN_FILE]: 'file',
  [SECRETS_FILE]: 'file',
  [START_LOCK_FILE]: 'file',
  kafka: 'dir',
  // The nodes of a cluster (`stack up --brokers 3`): kafka-cluster.ts.
  'kafka-cluster': 'dir',
  registry: 'dir',
  // PostgreSQL's data directory and log (postgres-server.ts).
  postgres: 'dir',
  // Jaeger's configuration and log; its traces are in memory (jaeger.ts).
  jaeger: 'dir',
};

/**
 * Why `stack wipe` must not delete `dir`, or undefined when it may: when it is absent, empty,
 * or holds only what a stack keeps. Guards against a mistyped --state-dir deleting a home folder.
 */
export function wipeRefusal(dir: string): string | undefined {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ENOTDIR') return `${dir} is not a folder`;
    throw error;
  }
  const unexpected = entries
    .filter((entry) => STATE_DIR_ENTRIES[entry.name] !== (entry.isDirectory() ? 'dir' : entry.isFile() ? 'file' : undefined))
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name));
  if (unexpected.length === 0) return undefined;
  const shown = unexpected.slice(0, 5).join(', ') + (unexpected.length > 5 ? `, and ${unexpected.length - 5} more` : '');
  return `${dir} does not look like a stack state dir (it holds ${shown}; a state dir holds only run.json, secrets.env, kafka/, kafka-cluster/, registry/, postgres/ and jaeger/): not deleting it`;
}

/** Whether a start is under way in `stateDir` right now (its lock is held by a live process). */
export function startInProgress(stateDir: string): number | undefined {
  const holder = lockHolder(path.join(stateDir, START_LOCK_FILE));
  return holder !== undefined && isAlive(holder) ? holder : undefined;
}
