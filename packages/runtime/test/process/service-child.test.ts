import path from 'node:path';
import { ErrorCodes } from '@hookstream/errors';
import { freePort } from '../../src/process/free-port';
import {
  describeExit,
  ServiceChild,
  ServiceNotReadyError,
  startServiceChild,
  type ServiceChildOptions,
} from '../../src/process/service-child';

const FAKE_SERVICE = path.join(__dirname, 'fake-service.js');

/** Options for the fake service on a free port, `env` telling it how to behave. */
async function fake(env: NodeJS.ProcessEnv, extra: Partial<ServiceChildOptions> = {}): Promise<ServiceChildOptions> {
  return { name: 'fake-service', entry: FAKE_SERVICE, port: await freePort(), env: { PATH: process.env.PATH, ...env }, ...extra };
}

const started: ServiceChild[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((service) => service.stop({ signal: 'SIGKILL' })));
});

function spawnFake(options: ServiceChildOptions): ServiceChild {
  const service = ServiceChild.spawn(options);
  started.push(service);
  return service;
}

describe('ServiceChild', () => {
  test('when /readyz answers 503 for a while and then 200, then untilReady resolves after that, and stop ends it with SIGTERM', async () => {
    const lines: string[] = [];
    const service = spawnFake(await fake({ FAKE_READY_AFTER_MS: '600' }, { onLine: (line, stream) => lines.push(`${stream}: ${line}`) }));
    const before = Date.now();

    await service.untilReady({ timeoutMs: 10_000 });

    expect(Date.now() - before).toBeGreaterThanOrEqual(500);
    expect(service.exitStatus).toBeUndefined();
    expect(lines).toContain(`stdout: fake service on ${new URL(service.url).port}`);
    expect(await service.stop()).toEqual({ code: 0, signal: null });
    expect(service.exitStatus).toEqual({ code: 0, signal: null });
  });

  test('when it has an ops port, then it is given OPS_PORT and is ready once /readyz answers 200 there, not on its API port', async () => {
    const opsPort = await freePort();
    const service = spawnFake(await fake({}, { opsPort }));

    await service.untilReady({ timeoutMs: 10_000 });

    expect(service.opsUrl).toBe(`http://127.0.0.1:${opsPort}`);
    expect(service.opsUrl).not.toBe(service.url);
    expect((await fetch(`${service.opsUrl}/readyz`)).status).toBe(200);
    expect((await fetch(`${service.url}/readyz`)).status).toBe(404);
  });

  test('when it exits before it is ready, then the error says how it ended and gives its last 20 stderr lines', async () => {
    const service = spawnFake(await fake({ FAKE_EXIT_CODE: '2', FAKE_STDERR_LINES: '25' }));

    const error = await service.untilReady({ timeoutMs: 10_000 }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ServiceNotReadyError);
    expect(error).toMatchObject({ code: ErrorCodes.SERVICE_NOT_READY, retryable: false });
    const message = (error as Error).message;
    expect(message).toContain(
      `fake-service (pid ${service.pid}) exited with code 2 before it was ready; its last lines on stderr:\n  stderr line 6\n`,
    );
    expect(message).toMatch(/stderr line 25$/);
    expect(message).not.toContain('stderr line 5\n');
    expect((error as ServiceNotReadyError).details).toMatchObject({ exit: { code: 2, signal: null }, service: 'fake-service' });
  });

  test('when it exits without a word on stderr, then the error says so', async () => {
    const service = spawnFake(await fake({ FAKE_EXIT_CODE: '1' }));

    await expect(service.untilReady({ timeoutMs: 10_000 })).rejects.toThrow(
      /exited with code 1 before it was ready; it wrote nothing on stderr$/,
    );
  });

  test('when /readyz does not answer 200 within the deadline, then the error names the address and the deadline', async () => {
    const service = spawnFake(await fake({ FAKE_READY_AFTER_MS: '60000' }));

    await expect(service.untilReady({ timeoutMs: 800 })).rejects.toThrow(
      `fake-service (pid ${service.pid}) was not ready at ${service.url}/readyz within 0.8 s`,
    );
    expect(service.exitStatus).toBeUndefined();
  });

  test('when the caller aborts the wait, then untilReady rejects with the caller reason, not a readiness error', async () => {
    const service = spawnFake(await fake({ FAKE_READY_AFTER_MS: '60000' }));
    const stop = new AbortController();
    setTimeout(() => stop.abort(new Error('interrupted')), 300);

    await expect(service.untilReady({ timeoutMs: 10_000, signal: stop.signal })).rejects.toThrow(/^interrupted$/);
  });

  test('when it ignores SIGTERM, then stop kills it with SIGKILL after the grace period', async () => {
    const service = spawnFake(await fake({ FAKE_IGNORE_SIGTERM: '1' }));
    await service.untilReady({ timeoutMs: 10_000 });
    const before = Date.now();

    expect(await service.stop({ graceMs: 500 })).toEqual({ code: null, signal: 'SIGKILL' });
    expect(Date.now() - before).toBeGreaterThanOrEqual(450);
  });

  test('when its entry cannot be run at all, then the error says it could not be started', async () => {
    const service = spawnFake(await fake({}, { cwd: path.join(__dirname, 'no-such-directory') }));

    await expect(service.untilReady({ timeoutMs: 10_000 })).rejects.toThrow(/^fake-service could not be started: spawn .* ENOENT/);
    expect(service.pid).toBe(-1);
    expect(service.exitStatus).toEqual({ code: -1, signal: null });
  });
});

describe('startServiceChild', () => {
  test('when the service is ready, then it resolves with it running', async () => {
    const service = await startServiceChild({ ...(await fake({})), timeoutMs: 10_000 });
    started.push(service);

    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
  });

  test('when the service is not ready in time, then it is killed and the error thrown', async () => {
    const options = await fake({ FAKE_READY_AFTER_MS: '60000' });
    const lines: string[] = [];

    await expect(startServiceChild({ ...options, timeoutMs: 500, onLine: (line) => lines.push(line) })).rejects.toBeInstanceOf(
      ServiceNotReadyError,
    );
    expect(lines).toEqual([`fake service on ${options.port}`]);
    // Killed: nothing listens there any more.
    await expect(fetch(`http://127.0.0.1:${options.port}/readyz`)).rejects.toThrow();
  });
});

describe('describeExit', () => {
  test('when it was killed, then the signal; when it exited, then the code; when unknown, then "is gone"', () => {
    expect(describeExit({ code: null, signal: 'SIGKILL' })).toBe('was killed by SIGKILL');
    expect(describeExit({ code: 1, signal: null })).toBe('exited with code 1');
    expect(describeExit(undefined)).toBe('is gone');
  });
});
