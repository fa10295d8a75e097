import { ConfigError, ErrorCodes } from '@hookstream/errors';
import { type ExitStatus } from '@hookstream/runtime';
import { RestartPolicy } from '../../src/supervisor/restart-policy';
import { StackAvailability } from '../../src/supervisor/stack-supervision';
import { SupervisedProcess, type Incarnation } from '../../src/supervisor/supervised-process';

/** An incarnation the test ends when it likes. */
function fakeIncarnation(pid: number): Incarnation & { end: (status: ExitStatus) => void } {
  let end: (status: ExitStatus) => void = () => undefined;
  const ended = new Promise<ExitStatus>((resolve) => (end = resolve));
  return { pid, ended, end: (status) => end(status) };
}

const killed: ExitStatus = { code: null, signal: 'SIGKILL' };
const failed: ExitStatus = { code: 1, signal: null };
const fastPolicy = () => new RestartPolicy({ initialDelayMs: 1, maxDelayMs: 5 });
const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(check()).toBe(true);
};

describe('SupervisedProcess', () => {
  test('when it is killed, then it is started again and each step is said with the signal', async () => {
    const lines: string[] = [];
    const launched: Array<ReturnType<typeof fakeIncarnation>> = [];
    const supervised = new SupervisedProcess({
      name: 'callback-sender',
      say: (line) => lines.push(line),
      policy: fastPolicy(),
      launch: () => Promise.resolve(launched[launched.push(fakeIncarnation(200 + launched.length)) - 1]!),
      whenServing: () => Promise.resolve(),
    });
    const first = fakeIncarnation(100);
    const done = supervised.supervise(first);
    first.end(killed);
    await until(() => lines.some((l) => l.includes('is ready again')));
    supervised.stop();
    await done;
    expect(launched).toHaveLength(1);
    expect(lines[0]).toMatch(/^callback-sender \(pid 100\) was killed by SIGKILL after [\d.]+ s; restarting it in 0\.0 s$/);
    expect(lines[1]).toBe('callback-sender started again (pid 200, restart 1)');
    expect(lines[2]).toMatch(/^callback-sender is ready again, [\d.]+ s after it went down$/);
  });

  test('when it crashes at once every time, then it is given up on with the exit code and the rule', async () => {
    const supervised = new SupervisedProcess({
      name: 'ingress',
      say: () => undefined,
      policy: fastPolicy(),
      launch: () => {
        const next = fakeIncarnation(7);
        next.end(failed);
        return Promise.resolve(next);
      },
    });
    const first = fakeIncarnation(1);
    first.end(failed);
    const error = await supervised.supervise(first).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCodes.PROCESS_GAVE_UP });
    expect((error as Error).message).toMatch(/exited with code 1 .*gave up on ingress after 5 crashes in a row, each within 60 s/);
  });

  test('when it could not be started again, then that counts as a crash and says why', async () => {
    const lines: string[] = [];
    const supervised = new SupervisedProcess({
      name: 'kafka',
      say: (line) => lines.push(line),
      policy: new RestartPolicy({ initialDelayMs: 1, maxFastCrashes: 2 }),
      launch: () => Promise.reject(new Error('port 9092 is taken')),
    });
    const first = fakeIncarnation(1);
    first.end(killed);
    await expect(supervised.supervise(first)).rejects.toThrow(/kafka could not be started again: port 9092 is taken; gave up on kafka/);
  });

  test('when it refuses its configuration, then it is not started again', async () => {
    let launches = 0;
    const supervised = new SupervisedProcess({
      name: 'ingress',
      say: () => undefined,
      policy: fastPolicy(),
      launch: () => Promise.resolve(fakeIncarnation(++launches)),
      refusal: (status) => (status?.code === 2 ? new ConfigError([{ variable: 'ingress', message: 'refused' }]) : undefined),
    });
    const first = fakeIncarnation(1);
    first.end({ code: 2, signal: null });
    await expect(supervised.supervise(first)).rejects.toBeInstanceOf(ConfigError);
    expect(launches).toBe(0);
  });

  test('when the stack is down, then crashes are not counted and the restart waits until it is back', async () => {
    const stack = new StackAvailability();
    const lines: string[] = [];
    let launches = 0;
    const supervised = new SupervisedProcess({
      name: 'ingress',
      say: (line) => lines.push(line),
      policy: new RestartPolicy({ initialDelayMs: 1, maxFastCrashes: 1 }),
      dependency: stack,
      launch: () => Promise.resolve(fakeIncarnation(100 + ++launches)),
    });
    stack.markDown('kafka');
    const first = fakeIncarnation(1);
    const done = supervised.supervise(first);
    first.end(failed);
    await until(() => lines.length > 0);
    expect(lines[0]).toContain('(not counted as its crash: the local stack was down)');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(launches).toBe(0); // waits for the stack
    stack.markUp('kafka');
    await until(() => launches === 1);
    supervised.stop();
    await done;
  });
});
