/**
 * `hookstream stack up` in the foreground, and interrupted or failing while it starts: whatever
 * happens, no process of its state dir is left running. Each test starts a real Kafka, registry
 * and PostgreSQL of its own, on free ports.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sleep } from '@hookstream/runtime';
import { waitFor } from '../../test/helpers/infrastructure';
import { CLI, isolatedStackEnv, listensOn, processesMentioning, runCli, startNode } from '../../test/helpers/processes';

describe('hookstream stack up', () => {
  let stateDir: string;
  let envFile: string;
  // Nothing from the test run's own stack leaks in, and the usual ports are never touched.
  const env = () => isolatedStackEnv(envFile);
  const up = (...flags: string[]) => startNode([CLI, 'stack', 'up', '--state-dir', stateDir, ...flags], env());
  /** The stack's JVMs (the CLI's own command line names the state dir too). */
  const jvms = (component = '') => processesMentioning(`-Djava.io.tmpdir=${path.join(stateDir, component)}`);

  beforeEach(() => {
    stateDir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-up-test-'));
    envFile = `${stateDir}.env`;
  });
  afterEach(async () => {
    await runCli(['stack', 'down', '--state-dir', stateDir], { env: env() }); // only if a test failed half-way
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(envFile, { force: true });
  });

  test('when run in the foreground, then it stays up until Ctrl-C; a second Ctrl-C while it stops changes nothing; nothing is left', async () => {
    writeFileSync(path.join(stateDir, 'start.lock'), '2147483646\n'); // left by a start that crashed: stale
    const run = up();
    try {
      await waitFor(() => run.output().includes('press Ctrl-C to stop'), 'the stack to be ready', 150_000);
      await sleep(1000);
      expect(run.child.exitCode).toBeNull(); // still in the foreground
      expect(jvms()).toHaveLength(2);
      expect(processesMentioning(path.join(stateDir, 'postgres', 'data'))).toHaveLength(1); // the postmaster
      const written = readFileSync(envFile, 'utf8');
      expect(written).toContain(`state in ${stateDir}.`);
      const postgresPort = Number(/^DATABASE_URL=postgres:\/\/\S+@127\.0\.0\.1:(\d+)\/hookstream$/m.exec(written)?.[1]);
      expect(await listensOn(postgresPort)).toBe(true);
      expect(existsSync(path.join(stateDir, 'start.lock'))).toBe(false);

      // Jaeger dying stops nothing else: the stack stays in the foreground and says so.
      const { processes } = JSON.parse(readFileSync(path.join(stateDir, 'run.json'), 'utf8')) as { processes: { jaeger?: number } };
      expect(processes.jaeger).toBeGreaterThan(0);
      process.kill(processes.jaeger!, 'SIGKILL');
      await waitFor(() => run.output().includes('Jaeger exited'), 'the stack to say Jaeger exited', 10_000);
      await sleep(1000);
      expect(run.child.exitCode).toBeNull();
      expect(jvms()).toHaveLength(2);
      expect(await listensOn(postgresPort)).toBe(true);

      // As when a terminal's Ctrl-C is pressed again, or `timeout` signals the group again.
      run.child.kill('SIGINT');
      for (let i = 0; i < 3; i++) {
        await sleep(30);
        run.child.kill('SIGINT');
      }
      expect(await run.exited).toBe(0);
      expect(run.output()).toContain('stopping (got SIGINT)');
      expect(run.output()).toContain('shutdown is in progress');
      expect(run.output()).toMatch(/stopped\s*$/);
      expect(processesMentioning(stateDir)).toEqual([]);
      expect(await listensOn(postgresPort)).toBe(false);
      expect(existsSync(path.join(stateDir, 'run.json'))).toBe(false);
      expect(existsSync(envFile)).toBe(false); // it pointed at the broker just stopped
    } finally {
      run.child.kill('SIGKILL');
    }
  }, 200_000);

  test('when interrupted while it starts, then it stops what it started, says so and exits 130', async () => {
    const run = up('--detach');
    try {
      // Interrupted once a JVM runs: the start is under way, not yet ready.
      await waitFor(() => jvms().length > 0, 'a JVM of the stack to start', 60_000);
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(130);
      expect(run.output()).toContain('hookstream: interrupted');
      expect(run.output()).not.toContain('ready in');
      expect(processesMentioning(stateDir)).toEqual([]);
      expect(existsSync(path.join(stateDir, 'run.json'))).toBe(false);
      expect(existsSync(path.join(stateDir, 'start.lock'))).toBe(false);
    } finally {
      run.child.kill('SIGKILL');
    }
  }, 120_000);

  test('when the registry dies while it starts, then Kafka and PostgreSQL are stopped too and it fails within seconds with the cause', async () => {
    const run = up('--detach');
    try {
      // Generous: Kafka's storage format comes first, beside PostgreSQL's initdb, on a shared 2-core machine.
      const [registry] = await waitFor(() => jvms('registry').length > 0 && jvms('registry'), 'the registry JVM to start', 60_000);
      const killed = Date.now();
      process.kill(registry!, 'SIGKILL');
      expect(await run.exited).toBe(1);
      expect(Date.now() - killed).toBeLessThan(20_000); // not the 2 min readiness deadline
      expect(run.output()).toMatch(/Apicurio Registry exited with SIGKILL while starting/);
      expect(processesMentioning(stateDir)).toEqual([]);
      expect(existsSync(path.join(stateDir, 'run.json'))).toBe(false);
    } finally {
      run.child.kill('SIGKILL');
    }
  }, 120_000);
});
