/**
 * `hookstream stack status / down / wipe / up` against recorded state that does not need a real
 * stack: dead pids, pids reused by other processes, foreign folders, a held start lock. Stand-in
 * processes carry `-Djava.io.tmpdir=<stateDir>/…` in their command line, as the stack's JVMs do.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@hookstream/runtime';
import { waitFor } from '../../test/helpers/infrastructure';
import { CLI, REPO_ROOT, isolatedStackEnv, processesMentioning, runCli } from '../../test/helpers/processes';

const children: ChildProcess[] = [];

/** A long-sleeping process; with `stateDir`, it looks like one of that stack's JVMs. */
function standIn(stateDir?: string): number {
  const args = ['-e', 'setTimeout(() => {}, 120000)', ...(stateDir ? ['--', `-Djava.io.tmpdir=${stateDir}/kafka/tmp`] : [])];
  const child = spawn(process.execPath, args, { detached: true, stdio: 'ignore' });
  children.push(child);
  return child.pid!;
}

/** The pid of a process that has ended. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('hookstream stack with recorded state', () => {
  let stateDir: string;
  let envFile: string;
  // Nothing from the test run's own stack leaks in, and a start never touches the usual ports.
  const env = () => isolatedStackEnv(envFile);
  const cli = (...args: string[]) => runCli([...args, '--state-dir', stateDir], { env: env(), timeoutMs: 30_000 });

  beforeEach(() => {
    stateDir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-state-test-'));
    envFile = `${stateDir}.env`;
  });
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(envFile, { force: true });
  });

  /** A run.json; PostgreSQL's pid, unless given, is one no process can have. */
  async function recordRun(recorded: { kafka: number; registry: number; postgres?: number }, kafkaPort = 9) {
    const registryPort = await freePort();
    const processes = { postgres: 2147483646, ...recorded };
    const info = {
      stateDir,
      startedAt: new Date().toISOString(),
      versions: { kafka: '4.3.1', log4j: '2.24.3', apicurio: '3.3.3' },
      settings: {
        KAFKA_BROKERS: `127.0.0.1:${kafkaPort}`,
        SCHEMA_REGISTRY_URL: `http://127.0.0.1:${registryPort}/apis/ccompat/v7`,
        DATABASE_URL: 'postgres://hookstream:hookstream@127.0.0.1:3/hookstream',
      },
      processes,
      ports: { kafka: kafkaPort, kafkaController: 1, registry: registryPort, registryManagement: 2, postgres: 3 },
      logs: { kafka: 'kafka.log', registry: 'registry.log', postgres: 'postgres.log' },
      java: 'java',
    };
    writeFileSync(path.join(stateDir, 'run.json'), JSON.stringify(info));
  }

  test('when the recorded processes are dead, then status says so at once and exits 3', async () => {
    await recordRun({ kafka: await deadPid(), registry: await deadPid() });
    const started = Date.now();
    const status = await cli('stack', 'status');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(status.code).toBe(3);
    expect(status.stdout).toMatch(/not running .*are dead/);
  });

  test('when Kafka is down while its process lives, then status gives the real cause quickly and marks the dead pid', async () => {
    const port = await freePort(); // nothing listens there
    const registryPid = await deadPid();
    await recordRun({ kafka: standIn(stateDir), registry: registryPid }, port);
    const started = Date.now();
    const status = await cli('stack', 'status');
    expect(Date.now() - started).toBeLessThan(8000); // the whole process, not only the printing
    expect(status.code).toBe(4);
    expect(status.stdout).toContain(`connect ECONNREFUSED 127.0.0.1:${port}`);
    expect(status.stdout).toContain(`pid ${registryPid} (dead)`);
  });

  test('when a recorded pid now belongs to another process, then down and wipe leave that process alone', async () => {
    const stranger = standIn();
    await recordRun({ kafka: stranger, registry: await deadPid() });
    expect((await cli('stack', 'status')).code).toBe(3);
    const down = await cli('stack', 'down');
    expect(down.stdout).toContain('nothing was running');
    expect(isRunning(stranger)).toBe(true);
    await recordRun({ kafka: stranger, registry: await deadPid() });
    expect((await cli('stack', 'wipe')).code).toBe(0);
    expect(isRunning(stranger)).toBe(true);
  });

  test('when a recorded pid is ours, then down stops it and removes run.json', async () => {
    const ours = standIn(stateDir);
    await recordRun({ kafka: ours, registry: await deadPid() });
    expect((await cli('stack', 'wipe')).code).not.toBe(0); // refuses while it runs
    const down = await cli('stack', 'down');
    expect(down.stdout).toMatch(new RegExp(`stopped kafka \\(pid ${ours}, stopped\\)`));
    expect(processesMentioning(stateDir)).toEqual([]);
    expect(existsSync(path.join(stateDir, 'run.json'))).toBe(false);
  });

  test('when the folder is not a state dir, then wipe refuses, says why, and deletes nothing', async () => {
    writeFileSync(path.join(stateDir, 'notes.txt'), 'mine');
    mkdirSync(path.join(stateDir, 'kafka'));
    const wipe = await cli('stack', 'wipe');
    expect(wipe.code).toBe(1);
    expect(wipe.stderr).toMatch(/does not look like a stack state dir \(it holds notes\.txt/);
    expect(readFileSync(path.join(stateDir, 'notes.txt'), 'utf8')).toBe('mine');
  });

  test('when the folder holds only stack state, then wipe deletes it', async () => {
    mkdirSync(path.join(stateDir, 'kafka', 'data'), { recursive: true });
    // PostgreSQL's data directory: the state and delivery log databases go with it.
    mkdirSync(path.join(stateDir, 'postgres', 'data'), { recursive: true });
    writeFileSync(path.join(stateDir, 'secrets.env'), '');
    expect((await cli('stack', 'wipe')).code).toBe(0);
    expect(existsSync(stateDir)).toBe(false);
  });

  test('when another start holds the state dir, then up fails at once with a clear message and starts nothing', async () => {
    const holder = standIn();
    writeFileSync(path.join(stateDir, 'start.lock'), `${holder}\n`);
    const up = await cli('stack', 'up', '--detach');
    expect(up.code).toBe(1);
    expect(up.stderr).toContain(`another hookstream (pid ${holder}) is starting a stack from ${stateDir}`);
    expect(processesMentioning(stateDir)).toEqual([]);
    expect(existsSync(path.join(stateDir, 'start.lock'))).toBe(true); // theirs, kept
  });

  test('when both settings come from the environment, then up uses them and starts nothing', async () => {
    const up = await runCli(['stack', 'up', '--state-dir', stateDir], {
      env: { ...env(), KAFKA_BROKERS: '127.0.0.1:19092', SCHEMA_REGISTRY_URL: 'http://127.0.0.1:18081' },
      timeoutMs: 30_000,
    });
    expect(up.code).toBe(0);
    expect(up.stdout).toMatch(/using KAFKA_BROKERS=127\.0\.0\.1:19092 .* from the environment; nothing started/);
    expect(existsSync(path.join(stateDir, 'run.json'))).toBe(false);
    expect(processesMentioning(stateDir)).toEqual([]);
  });

  test('when down stops another state dir, then the env file written for this one is kept', async () => {
    const other = mkdtempSync(path.join(os.tmpdir(), 'hookstream-state-other-'));
    try {
      writeFileSync(envFile, `# Written by \`hookstream stack up\` at 2026-01-01T00:00:00.000Z; state in ${stateDir}.\nKAFKA_BROKERS=x\n`);
      await runCli(['stack', 'down', '--state-dir', other], { env: env() });
      expect(existsSync(envFile)).toBe(true);
      await cli('stack', 'down');
      expect(existsSync(envFile)).toBe(false);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  test('when the reader of its output goes away, then status ends quietly', async () => {
    await recordRun({ kafka: await deadPid(), registry: await deadPid() });
    // `true` exits before the CLI writes: the write meets a closed pipe (EPIPE).
    const piped = await new Promise<{ stderr: string; code: string }>((resolve) => {
      const shell = spawn(
        'bash',
        ['-c', `"${process.execPath}" "${CLI}" stack status --state-dir "${stateDir}" | true; echo "\${PIPESTATUS[0]}" >&2`],
        {
          cwd: REPO_ROOT,
          env: env(),
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      shell.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      shell.once('exit', () => resolve({ stderr, code: stderr.trim().split('\n').at(-1) ?? '' }));
    });
    expect(piped.stderr).not.toMatch(/EPIPE|Error/);
    expect(piped.code).toBe('3');
  });

  test('when Ctrl-C reaches it and Maven while it fetches, then it says interrupted, exits 130 and leaves no partial fetch', async () => {
    // A stand-in Maven that only waits, and an empty cache: the start stops in the fetch.
    const marker = `fake-mvn-${path.basename(stateDir)}`;
    const bin = path.join(stateDir, 'bin');
    const cacheDir = path.join(stateDir, 'cache');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'mvn'), `#!/bin/sh\nexec "${process.execPath}" -e "setTimeout(() => {}, 60000)" ${marker}\n`, {
      mode: 0o755,
    });
    // Its own process group, as a shell gives a command: a terminal's Ctrl-C goes to the whole group.
    const run = spawn(process.execPath, [CLI, 'stack', 'up', '--state-dir', stateDir, '--cache-dir', cacheDir], {
      cwd: REPO_ROOT,
      env: { ...env(), PATH: `${bin}:${process.env.PATH}` },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(run);
    let output = '';
    run.stdout.on('data', (d: Buffer) => (output += d.toString()));
    run.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => run.once('exit', resolve));
    await waitFor(() => processesMentioning(marker).length === 2, 'Maven to be fetching Kafka and Apicurio', 20_000);
    process.kill(-run.pid!, 'SIGINT');
    expect(await exited).toBe(130);
    expect(output).toContain('hookstream: interrupted');
    expect(output).not.toContain('Maven');
    await waitFor(() => processesMentioning(marker).length === 0, 'Maven to end', 5000);
    expect(readdirSync(cacheDir).filter((entry) => entry.includes('.partial-'))).toEqual([]);
  });

  test('when demo-partner gets a port that is no number, then it says so', async () => {
    const result = await runCli(['demo-partner', '--port', 'abc'], { env: env() });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('--port must be a port number');
  });
});
