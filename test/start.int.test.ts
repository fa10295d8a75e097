/**
 * `hookstream start` (what `npm start` runs), against the test run's broker, registry and
 * PostgreSQL (a database of its own per test): it
 * creates the topics, starts the five services and the demo partner, says where each listens
 * once ready (the console with an operator's sign-in, the demo's history in it), and on Ctrl-C
 * stops every process it started.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLI, runCli, startNode } from './helpers/processes';
import { testInfrastructure, uniqueName, waitFor } from './helpers/infrastructure';
import { freshStateDatabase, stopStateServer, type StateDatabase } from './helpers/state-database';

/** Pids of every process whose environment holds `variable` (from /proc): what `start` started with its settings. */
function processesWithEnvironment(variable: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(variable);
      } catch {
        return false; // ended meanwhile, or not ours to read
      }
    })
    .map(Number);
}

/** The value of `variable` in the environment of process `pid`. */
function environmentOf(pid: number, variable: string): string | undefined {
  const entry = readFileSync(`/proc/${pid}/environ`, 'utf8')
    .split('\0')
    .find((e) => e.startsWith(`${variable}=`));
  return entry?.slice(variable.length + 1);
}

/** The state database of each run (its delivery log gets `delivery_log` beside it unless given one). */
const databases: StateDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
  await stopStateServer();
});
async function database(): Promise<string> {
  const made = await freshStateDatabase();
  databases.push(made);
  return made.url;
}

// Free ports, never the usual ones a developer's own `hookstream start` may hold.
const startEnv = async (prefix: string, extra: NodeJS.ProcessEnv = {}): Promise<NodeJS.ProcessEnv> => ({
  ...process.env,
  DATABASE_URL: await database(),
  HOOKSTREAM_PORTS: 'random',
  TOPIC_PREFIX: prefix,
  TOPIC_PARTITIONS: '2',
  ...extra,
});

describe('hookstream start', () => {
  test('when started, then every service is ready where it says, the demo partner logs a callback, and Ctrl-C leaves nothing running', async () => {
    testInfrastructure();
    const prefix = `${uniqueName('start')}.`;
    // The delivery log in a database of its own here; the other tests take the default beside DATABASE_URL.
    const env = await startEnv(prefix, { DELIVERY_LOG_DATABASE_URL: await database() });
    const run = startNode([CLI, 'start'], env);
    try {
      await waitFor(() => /ready in [\d.]+ s/.test(run.output()), 'the system to be ready', 120_000);
      const out = run.output();
      const ingress = /ingress \(partner webhooks\)\s+(http:\/\/\S+)\/api\/integration\/partner\/webhook/.exec(out)?.[1];
      const demo = /demo partner endpoint\s+(http:\/\/\S+)\/callbacks/.exec(out)?.[1];
      const ops = [
        ...out.matchAll(/(?:policy-status-consumer|callback-sender|document-fetcher|delivery-log|ingress) ops\s+(http:\/\/\S+)\/metrics/g),
      ].map((m) => m[1]!);
      expect(ingress).toBeDefined();
      expect(demo).toBeDefined();
      expect(ops).toHaveLength(5);
      expect(out).toMatch(/partner API \(delivery log\)\s+http:\/\/\S+\/api\/portal\/v1/);
      expect(out).toContain(`${prefix}partner-events`); // topics ensure ran with the prefix
      expect(out).toMatch(/demo partner "demo-partner": callbacks go to http:\/\/127\.0\.0\.1:\d+\/callbacks/);
      const demoKey = /its API key \(x-api-key for the ingress\), shown once: (hsk_[A-Za-z0-9_-]{43})/.exec(out)?.[1];
      expect(demoKey).toBeDefined();
      const shown = await runCli(['partners', 'show', 'demo-partner', '--json'], { env: { ...process.env, TOPIC_PREFIX: prefix } });
      expect(JSON.parse(shown.stdout)).toMatchObject({
        status: 'ACTIVE',
        callback_endpoints: [{ url: `${demo}/callbacks` }],
        outbound_auth: { method: 'HMAC_SHA256' },
      });

      for (const url of ops) expect((await fetch(`${url}/readyz`)).status).toBe(200);

      // The console, an operator's sign-in for it, and the demo's history to look at (its webhook sent
      // twice, replayed once, its document served by the demo endpoint and stored).
      const [, logUrl, operatorToken] = /console: (http:\/\/\S+)\/console\/\s+sign in as an operator with (\S+)/.exec(out) ?? [];
      expect((await fetch(`${logUrl}/console/`)).status).toBe(200);
      // The ingress's and the delivery log's ops routes are on a port of their own; their API's answers 404 there.
      for (const api of [ingress!, logUrl!]) {
        expect(ops).not.toContain(api);
        expect((await fetch(`${api}/metrics`)).status).toBe(404);
      }
      const demoWebhooks = await waitFor(
        async () => {
          const answer = await fetch(`${logUrl}/api/admin/v1/webhooks?partner_id=demo-partner`, {
            headers: { authorization: `Bearer ${operatorToken}` },
          });
          const page = (await answer.json()) as { data?: Array<{ replay_count: number; documents_stored: number }> };
          return page.data?.some((w) => w.replay_count === 1 && w.documents_stored === 1) ? page.data : undefined;
        },
        "the demo partner's webhook, replayed and its document stored, in the console's API",
        30_000,
      );
      expect(demoWebhooks.length).toBeGreaterThanOrEqual(1);

      const callback = await fetch(`${demo}/callbacks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer do-not-print-me' },
        body: JSON.stringify({ policy_number: 'POL-1', status: 'POLICY_ACTIVE' }),
      });
      expect(callback.status).toBe(200);
      await waitFor(
        () => run.output().includes('[demo-partner]') && run.output().includes('POL-1'),
        'the demo partner to log the callback',
      );
      expect(run.output()).not.toContain('do-not-print-me');

      const servicePids = [...run.output().matchAll(/"instance":"[^"]*-(\d+)"/g)].map((m) => Number(m[1]));
      expect(new Set(servicePids).size).toBe(5);
      // Every service is given the PostgreSQL of the state and of the delivery log.
      for (const pid of new Set(servicePids)) {
        expect(environmentOf(pid, 'DATABASE_URL')).toBe(env.DATABASE_URL);
        expect(environmentOf(pid, 'DELIVERY_LOG_DATABASE_URL')).toBe(env.DELIVERY_LOG_DATABASE_URL);
      }

      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);
      expect(run.output()).toMatch(/stopped\s*$/);
      for (const pid of new Set(servicePids)) expect(() => process.kill(pid, 0)).toThrow();
      expect(processesWithEnvironment(`TOPIC_PREFIX=${prefix}`)).toEqual([]);
    } finally {
      run.child.kill('SIGKILL');
    }
  }, 180_000);

  test('when interrupted while it starts, then it stops what it started, says interrupted and exits 130', async () => {
    testInfrastructure();
    const prefix = `${uniqueName('start-interrupted')}.`;
    const run = startNode([CLI, 'start'], await startEnv(prefix));
    try {
      await waitFor(() => run.output().includes('creating topics and registering schemas'), 'start to be under way', 60_000);
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(130);
      expect(run.output()).toContain('hookstream: interrupted');
      expect(run.output()).not.toMatch(/ready in [\d.]+ s/);
      expect(processesWithEnvironment(`TOPIC_PREFIX=${prefix}`)).toEqual([]);
    } finally {
      run.child.kill('SIGKILL');
    }
  }, 120_000);

  const crashDir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-crash-'));
  afterAll(() => rmSync(crashDir, { recursive: true, force: true }));

  /** NODE_OPTIONS that make the callback-sender, and only it, exit with `code` as soon as it starts. */
  function crashingSender(code: number): string {
    const preload = path.join(crashDir, `crash-sender-${code}.js`);
    writeFileSync(preload, `if (process.argv[1]?.endsWith('callback-sender/dist/main.js')) process.exit(${code});\n`);
    return `${process.env.NODE_OPTIONS ?? ''} --require ${preload}`.trim();
  }

  test('when a service crashes at once every time, then it is restarted with backoff, then given up on: start stops everything and exits 1', async () => {
    testInfrastructure();
    const prefix = `${uniqueName('start-crashing')}.`;
    const began = Date.now();
    const result = await runCli(['start'], { env: await startEnv(prefix, { NODE_OPTIONS: crashingSender(1) }), timeoutMs: 120_000 });
    const out = result.stdout + result.stderr;
    expect(result.code).toBe(1);
    const restarts =
      out.match(/supervisor: callback-sender \(pid \d+\) exited with code 1 after [\d.]+ s; restarting it in [\d.]+ s/g) ?? [];
    expect(restarts.map((line) => line.replace(/.* in /, ''))).toEqual(['0.5 s', '1.0 s', '2.0 s', '4.0 s']);
    expect(result.stderr).toMatch(
      /hookstream: callback-sender \(pid \d+\) exited with code 1 after [\d.]+ s; gave up on callback-sender after 5 crashes in a row, each within 60 s of its start/,
    );
    expect(out).not.toMatch(/ready in [\d.]+ s/);
    expect(out).toMatch(/stopped\s*$/m);
    expect(processesWithEnvironment(`TOPIC_PREFIX=${prefix}`)).toEqual([]);
    process.stdout.write(`a service crashing at once: given up on after ${((Date.now() - began) / 1000).toFixed(1)} s\n`);
  }, 150_000);

  test('when a service refuses its configuration (exit 2), then it is not restarted: start stops everything and exits 2', async () => {
    testInfrastructure();
    const prefix = `${uniqueName('start-refused')}.`;
    const result = await runCli(['start'], { env: await startEnv(prefix, { NODE_OPTIONS: crashingSender(2) }), timeoutMs: 120_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('callback-sender: refused its configuration');
    expect(result.stdout).not.toContain('restarting it');
    expect(processesWithEnvironment(`TOPIC_PREFIX=${prefix}`)).toEqual([]);
  }, 150_000);

  test('when a setting is bad, then it exits 2 (as for any bad config) naming it, before starting anything', async () => {
    testInfrastructure();
    const prefix = `${uniqueName('start-bad-config')}.`;
    const result = await runCli(['start'], { env: await startEnv(prefix, { TOPIC_PARTITIONS: 'many' }), timeoutMs: 30_000 });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('TOPIC_PARTITIONS');
    expect(result.stdout).not.toContain('creating topics');
    const badLevel = await runCli(['start', '--log-level', 'loud'], { env: await startEnv(prefix), timeoutMs: 30_000 });
    expect(badLevel.code).toBe(2);
    expect(badLevel.stderr).toContain('LOG_LEVEL');
  });
});
