import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { StackError } from '@hookstream/errors';
import { fillOnce } from './artifacts';
import { Interrupted, endedByInterrupt } from './interruption';

const run = promisify(execFile);

/**
 * Debian bookworm's `prometheus` package, the source of `promtool` and of the Prometheus server the
 * tests run (the compose stack runs the prom/prometheus image instead). Pinned by version and
 * SHA-256: when Debian replaces this version (a point release drops the old .deb from the pool),
 * the download fails with a 404; take the new version's Filename and SHA256 from
 * `apt-cache show prometheus` on a bookworm machine and put them here.
 */
export const PROMETHEUS_PACKAGE = {
  version: '2.42.0+ds-5+deb12u1',
  /** Only the amd64 build is pinned; elsewhere point HOOKSTREAM_PROMETHEUS_BIN_DIR at an installed copy. */
  arch: 'amd64',
  sha256: '81d59a24fce84f7fbe97a45a4f2914b6a5881b5cd1db2a6a0e129e515e1a5f55',
  url: 'https://deb.debian.org/debian/pool/main/p/prometheus/prometheus_2.42.0+ds-5+deb12u1_amd64.deb',
} as const;

export interface PrometheusBinaries {
  /** Folder holding both executables. */
  dir: string;
  prometheus: string;
  promtool: string;
  /** True when nothing had to be downloaded. */
  cached: boolean;
}

function binariesIn(dir: string, cached: boolean): PrometheusBinaries {
  return { dir, prometheus: path.join(dir, 'prometheus'), promtool: path.join(dir, 'promtool'), cached };
}

/** Downloads the pinned .deb from deb.debian.org into `file`. */
async function download(file: string, signal: AbortSignal | undefined): Promise<void> {
  const response = await fetch(PROMETHEUS_PACKAGE.url, { signal: signal ?? AbortSignal.timeout(10 * 60_000) });
  if (!response.ok || !response.body) throw new Error(`GET ${PROMETHEUS_PACKAGE.url} answered ${response.status}`);
  await pipeline(Readable.fromWeb(response.body), createWriteStream(file), { signal });
}

/**
 * The same .deb through apt (`apt-get download`, no root needed), into `file`: for machines that
 * reach Debian only through an apt proxy or mirror. Needs the package lists (`apt-get update`).
 */
async function aptDownload(file: string, signal: AbortSignal | undefined): Promise<void> {
  const work = path.dirname(file);
  const before = new Set(readdirSync(work));
  await run('apt-get', ['download', `prometheus=${PROMETHEUS_PACKAGE.version}`], { cwd: work, timeout: 10 * 60_000, signal });
  const deb = readdirSync(work).find((f) => f.endsWith('.deb') && !before.has(f));
  if (!deb) throw new Error('apt-get download finished without writing a .deb');
  renameSync(path.join(work, deb), file);
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** Fetches the pinned package into `work` (deb.debian.org first, then apt), verifies its checksum, returns its path. */
async function fetchPackage(work: string, signal: AbortSignal | undefined): Promise<string> {
  const file = path.join(work, 'prometheus.deb');
  const sources: Array<[string, () => Promise<void>]> = [
    ['deb.debian.org', () => download(file, signal)],
    ['apt-get download', () => aptDownload(file, signal)],
  ];
  const failures: string[] = [];
  for (const [source, fetchFrom] of sources) {
    try {
      await fetchFrom();
    } catch (error) {
      if (endedByInterrupt(error, signal)) throw new Interrupted();
      failures.push(`${source}: ${(error as { stderr?: string }).stderr?.trim() || (error as Error).message}`);
      continue;
    }
    const sha256 = await sha256Of(file);
    if (sha256 === PROMETHEUS_PACKAGE.sha256) return file;
    // A wrong checksum is not tried elsewhere: the pin is wrong or something tampers with downloads.
    throw new StackError(`the prometheus package from ${source} has SHA-256 ${sha256}, not the pinned ${PROMETHEUS_PACKAGE.sha256}`);
  }
  throw new StackError(
    `could not fetch Debian's prometheus ${PROMETHEUS_PACKAGE.version} package (${failures.join('; ')}). ` +
      'If Debian has replaced that version, update PROMETHEUS_PACKAGE in cli/src/stack/prometheus-artifact.ts; ' +
      'or set HOOKSTREAM_PROMETHEUS_BIN_DIR to a folder holding prometheus and promtool.',
    { retryable: true },
  );
}

/**
 * `prometheus` and `promtool` from Debian's package, fetched once into the project's cache (as
 * the Kafka broker and the registry are), checksum verified, unpacked with `dpkg-deb -x`; nothing
 * is installed system-wide. HOOKSTREAM_PROMETHEUS_BIN_DIR, when set, is used instead.
 */
export async function ensurePrometheus(
  cacheDir: string,
  env: NodeJS.ProcessEnv = process.env,
  signal?: AbortSignal,
): Promise<PrometheusBinaries> {
  if (env.HOOKSTREAM_PROMETHEUS_BIN_DIR) {
    const given = binariesIn(path.resolve(env.HOOKSTREAM_PROMETHEUS_BIN_DIR), true);
    if (!existsSync(given.prometheus) || !existsSync(given.promtool)) {
      throw new StackError(`HOOKSTREAM_PROMETHEUS_BIN_DIR=${env.HOOKSTREAM_PROMETHEUS_BIN_DIR} must hold both prometheus and promtool`);
    }
    return given;
  }
  if (process.arch !== 'x64') {
    throw new StackError(
      `only the ${PROMETHEUS_PACKAGE.arch} build of Debian's prometheus package is pinned, and this machine is ${process.arch}: ` +
        'install prometheus (apt-get install prometheus) and set HOOKSTREAM_PROMETHEUS_BIN_DIR=/usr/bin',
    );
  }
  const dir = path.join(cacheDir, `prometheus-${PROMETHEUS_PACKAGE.version}`);
  const cached = existsSync(path.join(dir, '.complete'));
  await fillOnce(dir, async (work) => {
    const deb = await fetchPackage(work, signal);
    const root = path.join(work, 'root');
    mkdirSync(root);
    try {
      await run('dpkg-deb', ['-x', deb, root], { signal, timeout: 5 * 60_000 });
    } catch (error) {
      if (endedByInterrupt(error, signal)) throw new Interrupted();
      const e = error as { code?: unknown; stderr?: string };
      throw new StackError(
        e.code === 'ENOENT'
          ? 'dpkg-deb is not on PATH: unpacking the prometheus package needs it (a Debian or Ubuntu machine)'
          : `dpkg-deb -x failed: ${e.stderr?.trim() ?? String(error)}`,
        { cause: error },
      );
    }
    // Only the two executables are kept: the tests use the HTTP API, not the web UI's assets.
    for (const tool of ['prometheus', 'promtool']) renameSync(path.join(root, 'usr', 'bin', tool), path.join(work, tool));
    rmSync(root, { recursive: true, force: true });
    rmSync(deb, { force: true });
  });
  return binariesIn(dir, cached);
}
