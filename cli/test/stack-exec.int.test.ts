/**
 * `hookstream stack exec --ephemeral` (what `npm test` runs): the stack it starts is stopped and
 * its state removed when the command ends, fails, or is interrupted.
 */
import { existsSync } from 'node:fs';
import { waitFor } from '../../test/helpers/infrastructure';
import { CLI, processesMentioning, runCli, startNode } from '../../test/helpers/processes';

// Empty settings: exec must start a stack of its own, not use the test run's.
const env = { ...process.env, KAFKA_BROKERS: '', SCHEMA_REGISTRY_URL: '' };

describe('hookstream stack exec --ephemeral', () => {
  test('when the command fails, then its exit code is passed on and the stack is gone', async () => {
    const result = await runCli(
      ['stack', 'exec', '--ephemeral', '--', process.execPath, '-e', 'console.log(process.env.KAFKA_BROKERS); process.exit(7)'],
      {
        env,
        timeoutMs: 180_000,
      },
    );
    expect(result.code).toBe(7);
    expect(result.stdout.trim()).toMatch(/^127\.0\.0\.1:\d+$/);
    const stateDir = /local stack in (\S+)/.exec(result.stderr)?.[1];
    expect(stateDir).toBeDefined();
    expect(result.stderr).toContain('local stack stopped');
    expect(processesMentioning(stateDir!)).toEqual([]);
    expect(existsSync(stateDir!)).toBe(false);
  }, 180_000);

  test('when interrupted while the command runs, then the command and the stack stop and nothing is left', async () => {
    const run = startNode(
      [CLI, 'stack', 'exec', '--ephemeral', '--', process.execPath, '-e', "console.log('child-running'); setTimeout(() => {}, 120000)"],
      env,
    );
    try {
      await waitFor(() => run.output().includes('child-running'), 'the command to run', 120_000);
      const stateDir = /local stack in (\S+)/.exec(run.output())![1]!;
      expect(processesMentioning(stateDir).length).toBeGreaterThanOrEqual(2); // broker and registry

      run.child.kill('SIGINT');
      expect(await run.exited).toBe(130);
      expect(run.output()).toContain('local stack stopped');
      expect(processesMentioning(stateDir)).toEqual([]);
      expect(existsSync(stateDir)).toBe(false);
    } finally {
      run.child.kill('SIGKILL');
    }
  }, 180_000);
});
