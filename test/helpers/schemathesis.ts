/*
 * Schemathesis (a property-based fuzzer of OpenAPI documents) for the tests that send every
 * operation of a served document inputs its schemas allow and some they do not. The test installs
 * it itself, into a virtualenv cached per version under ~/.cache/hookstream (a fresh clone has
 * none; pip runs once per machine), and reads what was sent and answered from its HAR report.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const SCHEMATHESIS_VERSION = '4.32.5';
const VENV = path.join(os.homedir(), '.cache', 'hookstream', `schemathesis-${SCHEMATHESIS_VERSION}`);

/** The virtualenv's Python with schemathesis, installed first when this machine has none of this version. */
export async function ensureSchemathesis(): Promise<string> {
  const python = path.join(VENV, 'bin', 'python');
  if (existsSync(python)) return python;
  // Into a directory beside it, renamed when complete: an interrupted install leaves no half venv.
  const building = `${VENV}.partial-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  await run('python3', ['-m', 'venv', building]);
  await run(path.join(building, 'bin', 'pip'), ['install', '--quiet', `schemathesis==${SCHEMATHESIS_VERSION}`], { timeout: 300_000 });
  rmSync(VENV, { recursive: true, force: true });
  renameSync(building, VENV);
  return python;
}

/** Its command line's entry, called through the interpreter: a venv's scripts name the directory they were installed in. */
const CLI_ENTRY = 'import sys; from schemathesis.cli import schemathesis; sys.exit(schemathesis())';

export interface FuzzRun {
  /** The served OpenAPI document. */
  schemaUrl: string;
  /** Where its paths are served (the document names no server). */
  baseUrl: string;
  /** Sent on every request: the credentials. */
  headers: Record<string, string>;
  /** Only the operations whose path matches. */
  includePathRegex?: string;
  /** Fixed values of parameters by location and name ("path.partnerId"), so writes reach a real resource. */
  parameters?: Record<string, string>;
  /** Test cases per operation and phase. */
  maxExamples: number;
  /** The run is killed (and the test fails) past this. */
  timeoutMs: number;
}

export interface Exchange {
  method: string;
  url: string;
  /** The request's headers, as sent. */
  headers: Record<string, string>;
  /** The request's body, as sent (empty when none). */
  sent: string;
  status: number;
  /** The answer's body (its first 500 characters). */
  body: string;
}

/** Runs schemathesis once, deterministically; every request it sent with its answer. */
export async function fuzz(python: string, options: FuzzRun): Promise<Exchange[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-fuzz-'));
  try {
    const parameters = Object.entries(options.parameters ?? {}).map(([k, v]) => `${JSON.stringify(k)} = ${JSON.stringify(v)}`);
    writeFileSync(path.join(dir, 'schemathesis.toml'), `[parameters]\n${parameters.join('\n')}\n`);
    const har = path.join(dir, 'run.har');
    const args = [
      '-c',
      CLI_ENTRY,
      '--config-file',
      path.join(dir, 'schemathesis.toml'),
      'run',
      options.schemaUrl,
      '--url',
      options.baseUrl,
      ...Object.entries(options.headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
      ...(options.includePathRegex ? ['--include-path-regex', options.includePathRegex] : []),
      // Only the server errors are this test's concern; the answers' conformance is other tests'.
      '--checks',
      'not_a_server_error',
      '--phases',
      'examples,coverage,fuzzing',
      '--max-examples',
      String(options.maxExamples),
      '--seed',
      '20261127',
      // Deterministic generation keeps no example database either: each run is the same cases.
      '--generation-deterministic',
      '--no-shrink',
      '--continue-on-failure',
      '--workers',
      '2',
      '--request-timeout',
      '10',
      '--report',
      'har',
      '--report-har-path',
      har,
      '--no-color',
    ];
    // Its exit code says whether a check failed; the HAR says which request, and the test asserts on that.
    await run(python, args, { cwd: dir, timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024 }).catch(
      (error: Error & { killed?: boolean; stdout?: string; stderr?: string }) => {
        if (error.killed || !existsSync(har)) {
          throw new Error(`schemathesis did not finish: ${`${error.stdout ?? ''}${error.stderr ?? error.message}`.slice(-4000)}`);
        }
      },
    );
    return exchangesOf(JSON.parse(readFileSync(har, 'utf8')) as Har);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Har {
  log: {
    entries: Array<{
      request: { method: string; url: string; headers: Array<{ name: string; value: string }>; postData?: { text?: string } };
      response: { status: number; content?: { text?: string } };
    }>;
  };
}

function exchangesOf(har: Har): Exchange[] {
  return har.log.entries.map((e) => ({
    method: e.request.method,
    url: e.request.url,
    headers: Object.fromEntries(e.request.headers.map((h) => [h.name, h.value])),
    sent: e.request.postData?.text ?? '',
    status: e.response.status,
    body: (e.response.content?.text ?? '').slice(0, 500),
  }));
}
