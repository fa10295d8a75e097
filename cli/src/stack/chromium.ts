import { spawn } from 'node:child_process';
import { accessSync, closeSync, constants, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { StackError } from '@hookstream/errors';
import { defaultCacheDir } from './artifacts';
import { DEBIAN_CHROMIUM, chooseChromium, installChromiumWithApt, type AptGet } from './chromium-plan';
import { Interrupted } from './interruption';
import { logOffset, logSince } from './logs';

/** The whole install (an apt-get update included): about a minute on a good line. */
const INSTALL_TIMEOUT_MS = 15 * 60_000;
/** How long apt-get waits for another apt or dpkg run on the machine to finish, rather than failing at once. */
const APT_LOCK_WAIT_SECONDS = 600;

export interface ChromiumBinary {
  path: string;
  /** How long apt-get took, when this call installed it. */
  installSeconds?: number;
}

export interface EnsureChromiumOptions {
  /** False: only find one, never install (for callers in every test worker; the install is done once, elsewhere). */
  install?: boolean;
  /** Told when an install starts and how long it took. */
  say?: (line: string) => void;
  signal?: AbortSignal;
}

/**
 * The Chromium the browser tests drive (with playwright-core; its own browser downloads are not
 * used): HOOKSTREAM_CHROMIUM, else Debian's /usr/bin/chromium or a chromium on PATH, else, as root
 * on a machine with apt-get, Debian's chromium package installed now (its output appended to
 * chromium-install.log in the cache folder). Otherwise a StackError says what to install or set.
 */
export async function ensureChromium(env: NodeJS.ProcessEnv = process.env, options: EnsureChromiumOptions = {}): Promise<ChromiumBinary> {
  const override = env.HOOKSTREAM_CHROMIUM ? path.resolve(env.HOOKSTREAM_CHROMIUM) : undefined;
  const choice = chooseChromium({
    override,
    overrideRuns: override !== undefined && isExecutableFile(override),
    installed: isExecutableFile(DEBIAN_CHROMIUM) ? DEBIAN_CHROMIUM : onPath('chromium', env),
    root: process.getuid?.() === 0,
    aptGet: onPath('apt-get', env) !== undefined,
    mayInstall: options.install !== false,
  });
  if (choice.kind === 'use') return { path: choice.path };
  if (choice.kind === 'refuse') throw new StackError(choice.reason);

  const log = path.join(defaultCacheDir(env), 'chromium-install.log');
  options.say?.(`installing Debian's chromium for the browser tests (apt-get; its output in ${log})`);
  const started = performance.now();
  await installChromiumWithApt(aptGetLoggingTo(log, env, options.signal));
  if (!isExecutableFile(DEBIAN_CHROMIUM))
    throw new StackError(`apt-get installed chromium, but ${DEBIAN_CHROMIUM} is missing (see ${log})`);
  const installSeconds = Math.round((performance.now() - started) / 1000);
  options.say?.(`chromium installed in ${installSeconds} s`);
  return { path: DEBIAN_CHROMIUM, installSeconds };
}

/** Runs apt-get non-interactively, its output appended to `log`; all its runs share one deadline. */
function aptGetLoggingTo(log: string, env: NodeJS.ProcessEnv, interrupt: AbortSignal | undefined): AptGet {
  const deadline = AbortSignal.timeout(INSTALL_TIMEOUT_MS);
  const signal = interrupt ? AbortSignal.any([deadline, interrupt]) : deadline;
  return async (args) => {
    const argv = ['-o', `DPkg::Lock::Timeout=${APT_LOCK_WAIT_SECONDS}`, ...args];
    mkdirSync(path.dirname(log), { recursive: true });
    const offset = logOffset(log);
    const fd = openSync(log, 'a');
    try {
      writeSync(fd, `\n[${new Date().toISOString()}] apt-get ${argv.join(' ')}\n`);
      const code = await new Promise<number | null>((resolve, reject) => {
        const child = spawn('apt-get', argv, { env: { ...env, DEBIAN_FRONTEND: 'noninteractive' }, stdio: ['ignore', fd, fd], signal });
        child.once('error', reject);
        child.once('close', resolve);
      });
      return { ok: code === 0, output: logSince(log, offset) };
    } catch (error) {
      if (interrupt?.aborted) throw new Interrupted();
      if (deadline.aborted) {
        throw new StackError(
          `apt-get ${args.join(' ')} did not finish within ${INSTALL_TIMEOUT_MS / 60_000} minutes (its output in ${log})`,
          {
            retryable: true,
          },
        );
      }
      throw new StackError(`apt-get ${args.join(' ')} could not run: ${(error as Error).message}`, { cause: error });
    } finally {
      closeSync(fd);
    }
  };
}

function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  return (env.PATH ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.join(dir, name))
    .find(isExecutableFile);
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
