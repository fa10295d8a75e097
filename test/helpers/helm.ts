/*
 * Helm and kubernetes-validate for the chart's tests (deploy/helm/hookstream). Neither is on a
 * fresh machine: the test installs them itself, once per machine and version, under
 * ~/.cache/hookstream (HOOKSTREAM_CACHE_DIR overrides it). Helm is built from the Go module proxy
 * with `go install` (70–95 s on two idle cores, 26 min beside other agents' builds; no prebuilt binary can be fetched here), so Go must be on
 * PATH; kubernetes-validate comes from PyPI into a virtualenv (its API schemas are in the package,
 * so validation needs no network).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The local stack's cache folder (HOOKSTREAM_CACHE_DIR, else $XDG_CACHE_HOME/hookstream, else
 * ~/.cache/hookstream), as @hookstream/cli/stack's defaultCacheDir says; not imported from there, as
 * that entry loads the whole runtime into a unit test that needs none of it.
 */
function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HOOKSTREAM_CACHE_DIR) return env.HOOKSTREAM_CACHE_DIR;
  return path.join(env.XDG_CACHE_HOME ?? path.join(env.HOME ?? '/tmp', '.cache'), 'hookstream');
}

export const HELM_VERSION = 'v3.22.0';
export const KUBERNETES_VALIDATE_VERSION = '1.37.0';

/**
 * Fills `dir` once: `fill` writes into a sibling folder renamed into place when complete, so an
 * interrupted install never leaves a half-filled entry that a later run would trust.
 */
async function installOnce(dir: string, probe: string, fill: (workDir: string) => Promise<void>): Promise<void> {
  if (existsSync(path.join(dir, probe))) return;
  mkdirSync(path.dirname(dir), { recursive: true });
  const work = `${dir}.partial-${process.pid}`;
  rmSync(work, { recursive: true, force: true });
  try {
    await fill(work);
    rmSync(dir, { recursive: true, force: true });
    renameSync(work, dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** What an install step printed, for the error that says it failed. */
function outputOf(error: unknown): string {
  const e = error as { stdout?: string; stderr?: string; message?: string };
  return `${e.stdout ?? ''}${e.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n') || String(e.message);
}

/** `go` on PATH, else the official installer's location (a non-login shell may not have it on PATH). */
async function goCommand(): Promise<string | undefined> {
  for (const candidate of ['go', '/usr/local/go/bin/go']) {
    try {
      await run(candidate, ['version']);
      return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** The helm binary of {@link HELM_VERSION}, built with `go install` first when this machine has none. */
export async function ensureHelm(cacheDir = defaultCacheDir()): Promise<string> {
  const dir = path.join(cacheDir, `helm-${HELM_VERSION}`);
  await installOnce(dir, 'helm', async (work) => {
    const go = await goCommand();
    if (!go) {
      throw new Error(
        `Go is not on PATH: the chart tests build helm ${HELM_VERSION} with \`go install helm.sh/helm/v3/cmd/helm@${HELM_VERSION}\` ` +
          `(no prebuilt binary can be fetched). Install Go 1.25 or later and put its bin/ on PATH, or place a helm ${HELM_VERSION} binary at ${path.join(dir, 'helm')}.`,
      );
    }
    mkdirSync(work, { recursive: true });
    try {
      await run(go, ['install', `helm.sh/helm/v3/cmd/helm@${HELM_VERSION}`], {
        env: { ...process.env, GOBIN: work, CGO_ENABLED: '0' },
        timeout: 30 * 60_000,
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (error) {
      throw new Error(`building helm ${HELM_VERSION} with go install failed:\n${outputOf(error)}`, { cause: error });
    }
  });
  return path.join(dir, 'helm');
}

/** The kubernetes-validate command of {@link KUBERNETES_VALIDATE_VERSION}, installed into a virtualenv first when missing. */
export async function ensureKubernetesValidate(cacheDir = defaultCacheDir()): Promise<string> {
  const dir = path.join(cacheDir, `kubernetes-validate-${KUBERNETES_VALIDATE_VERSION}`);
  await installOnce(dir, 'bin/python', async (work) => {
    try {
      await run('python3', ['-m', 'venv', work]);
      await run(path.join(work, 'bin', 'pip'), ['install', '--quiet', `kubernetes-validate==${KUBERNETES_VALIDATE_VERSION}`], {
        timeout: 10 * 60_000,
      });
    } catch (error) {
      throw new Error(`installing kubernetes-validate ${KUBERNETES_VALIDATE_VERSION} (python3 -m venv, pip) failed:\n${outputOf(error)}`, {
        cause: error,
      });
    }
  });
  // Called through the interpreter: a venv's scripts name the folder they were installed in, which was renamed.
  return path.join(dir, 'bin', 'python');
}

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end and returns its exit code and output, whatever the code. */
export async function runCommand(file: string, args: string[]): Promise<CommandResult> {
  try {
    const { stdout, stderr } = await run(file, args, { maxBuffer: 64 * 1024 * 1024, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw error;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** The chart, from the repository's root. */
export const CHART_DIR = path.resolve(__dirname, '..', '..', 'deploy', 'helm', 'hookstream');

/** A rendered Kubernetes object: the fields the tests read. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}

/** `helm template` of the chart with these values files (relative to the chart) and --set pairs. */
export function helmTemplate(helm: string, valuesFiles: string[], sets: string[] = []): Promise<CommandResult> {
  const args = ['template', 'hookstream', CHART_DIR, '--namespace', 'hookstream'];
  for (const file of valuesFiles) args.push('--values', path.join(CHART_DIR, file));
  for (const set of sets) args.push('--set', set);
  return runCommand(helm, args);
}
