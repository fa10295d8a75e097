/**
 * `hookstream stack exec --ephemeral` (what `npm test` runs): the stack it starts is stopped and
 * its state removed when the command ends, fails, or is interrupted.
 */
import { existsSync } from 'node:fs';
import { waitFor } from '../../test/helpers/infrastructure';
import { CLI, listensOn, processesMentioning, runCli, startNode } from '../../test/helpers/processes';

// Empty settings: exec must start a stack of its own, not use the test run's (nor a trace collector of the environment).
const env = { ...process.env, KAFKA_BROKERS: '', SCHEMA_REGISTRY_URL: '', DATABASE_URL: '', OTEL_EXPORTER_OTLP_ENDPOINT: '' };

/** Prints KAFKA_BROKERS, then DATABASE_URL and what its server answers to `select 1`, then exits 7. */
const PRINT_SETTINGS = `
const { Client } = require('pg');
console.log(process.env.KAFKA_BROKERS);
const client = new Client({ connectionString: process.env.DATABASE_URL });
client.connect()
  .then(() => client.query('select 1 as one'))
  .then(({ rows }) => console.log(process.env.DATABASE_URL, rows[0].one))
  .finally(() => client.end())
  .then(() => process.exit(7), (error) => { console.error(error); process.exit(1); });
`;

describe('hookstream stack exec --ephemeral', () => {
  test('when the command fails, then its exit code is passed on and the stack is gone', async () => {
    const result = await runCli(['stack', 'exec', '--ephemeral', '--', process.execPath, '-e', PRINT_SETTINGS], {
      env,
      timeoutMs: 180_000,
    });
    expect(result.code).toBe(7);
    const [brokers, database] = result.stdout.trim().split('\n');
    expect(brokers).toMatch(/^127\.0\.0\.1:\d+$/);
    // The stack's own PostgreSQL, answering, in the state database.
    const port = Number(/^postgres:\/\/hookstream:hookstream@127\.0\.0\.1:(\d+)\/hookstream 1$/.exec(database ?? '')?.[1]);
    expect(port).toBeGreaterThan(0);
    const stateDir = /local stack in (\S+)/.exec(result.stderr)?.[1];
    expect(stateDir).toBeDefined();
    // Nothing after the command's own output (a CI harness reads its last line): the stack stopped cleanly.
    expect(result.stderr.trimEnd().split('\n').at(-1)).toMatch(/^stack ready in [\d.]+ s$/);
    expect(processesMentioning(stateDir!)).toEqual([]);
    expect(await listensOn(port)).toBe(false);
    expect(existsSync(stateDir!)).toBe(false);
    // No trace store unless asked: every test's services would trace (see the next test).
    expect(result.stderr).not.toMatch(/jaeger/i);
  }, 180_000);

  test("when --traces is given, then the command traces into the fresh stack's Jaeger, which is gone after it", async () => {
    const printTraces = `
      const { OTEL_EXPORTER_OTLP_ENDPOINT: otlp, DELIVERY_LOG_TRACE_URL: link } = process.env;
      const ui = link.replace('/trace/{trace_id}', '');
      fetch(ui + '/api/services').then((r) => console.log(otlp, link, r.status));
    `;
    const result = await runCli(['stack', 'exec', '--ephemeral', '--traces', '--', process.execPath, '-e', printTraces], {
      env,
      timeoutMs: 180_000,
    });
    expect(result.code).toBe(0);
    const [otlp, link, answered] = result.stdout.trim().split(' ');
    expect(otlp).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/trace\/\{trace_id\}$/);
    expect(answered).toBe('200');
    expect(result.stderr).toMatch(/jaeger: ready at http:\/\/127\.0\.0\.1:\d+, OTLP at /);
    const stateDir = /local stack in (\S+)/.exec(result.stderr)![1]!;
    expect(processesMentioning(stateDir)).toEqual([]);
    expect(await listensOn(Number(new URL(otlp!).port))).toBe(false);
  }, 180_000);

  test('when interrupted while the command runs, then the command and the stack stop and nothing is left', async () => {
    const run = startNode(
      [CLI, 'stack', 'exec', '--ephemeral', '--', process.execPath, '-e', "console.log('child-running'); setTimeout(() => {}, 120000)"],
      env,
    );
    try {
      await waitFor(() => run.output().includes('child-running'), 'the command to run', 120_000);
      const stateDir = /local stack in (\S+)/.exec(run.output())![1]!;
      expect(processesMentioning(stateDir).length).toBeGreaterThanOrEqual(3); // broker, registry and PostgreSQL

      run.child.kill('SIGINT');
      expect(await run.exited).toBe(130);
      expect(run.output().trimEnd()).toMatch(/child-running$/);
      expect(processesMentioning(stateDir)).toEqual([]);
      expect(existsSync(stateDir)).toBe(false);
    } finally {
      run.child.kill('SIGKILL');
    }
  }, 180_000);

  test('when interrupted while the stack starts, then it exits 130 and leaves nothing', async () => {
    const run = startNode([CLI, 'stack', 'exec', '--ephemeral', '--', process.execPath, '-e', "console.log('child-running')"], env);
    try {
      await waitFor(() => run.output().includes('local stack in'), 'the stack to start', 30_000);
      const stateDir = /local stack in (\S+)/.exec(run.output())![1]!;
      await waitFor(() => processesMentioning(`-Djava.io.tmpdir=${stateDir}/`).length > 0, 'a JVM of the stack to start', 60_000);
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(130);
      expect(run.output()).toContain('hookstream: interrupted');
      expect(run.output()).not.toContain('child-running');
      expect(processesMentioning(stateDir)).toEqual([]);
      expect(existsSync(stateDir)).toBe(false);
    } finally {
      run.child.kill('SIGKILL');
    }
  }, 120_000);
});

describe('hookstream stack exec with settings from the environment', () => {
  const given = { ...process.env, KAFKA_BROKERS: '127.0.0.1:19092', SCHEMA_REGISTRY_URL: 'http://127.0.0.1:18081' };

  test('when the command is killed by a signal, then the exit code is 128 + its number and nothing follows its output', async () => {
    const result = await runCli(['stack', 'exec', '--', 'sh', '-c', 'echo last words >&2; kill -TERM $$'], { env: given });
    expect(result.code).toBe(143);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe('last words');
  });
});
