import { GracefulShutdown } from '../src/lifecycle';
import { createLogger } from '../src/logging';

const logger = createLogger({ service: 'test', level: 'silent' });

describe('GracefulShutdown', () => {
  afterEach(() => {
    process.removeAllListeners('SIGTERM');
    process.removeAllListeners('SIGINT');
  });

  test('on SIGTERM the steps run in reverse order, then the process exits 0', async () => {
    const order: string[] = [];
    const exits: number[] = [];
    const shutdown = new GracefulShutdown({ logger, timeoutMs: 1000, exit: (code) => exits.push(code) });
    shutdown.onStop('producer', async () => void order.push('producer'));
    shutdown.onStop('http', async () => void order.push('http'));
    shutdown.handleSignals();
    process.emit('SIGTERM', 'SIGTERM');
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual(['http', 'producer']);
    expect(exits).toEqual([0]);
  });

  test('when a step hangs, then the process still exits 1 after the timeout, and a second signal exits at once', async () => {
    const exits: number[] = [];
    const shutdown = new GracefulShutdown({ logger, timeoutMs: 50, exit: (code) => exits.push(code) });
    shutdown.onStop('stuck', () => new Promise(() => undefined));
    shutdown.handleSignals();
    process.emit('SIGTERM', 'SIGTERM');
    process.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([1]);
    await new Promise((r) => setTimeout(r, 120));
    expect(exits).toEqual([1, 1]);
  });

  test('when logging throws (a closed stdout), then shutdown still completes and exits', async () => {
    const exits: number[] = [];
    const broken = createLogger({ service: 'test', level: 'info' });
    broken.info = () => {
      throw new Error('EPIPE');
    };
    const shutdown = new GracefulShutdown({ logger: broken, timeoutMs: 1000, exit: (code) => exits.push(code) });
    shutdown.onStop('step', async () => undefined);
    shutdown.handleSignals();
    process.emit('SIGTERM', 'SIGTERM');
    await new Promise((r) => setTimeout(r, 20));
    expect(exits).toEqual([0]);
  });
});

/** Resolves once `done()` holds; fails the test after 2 s. */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('GracefulShutdown phases', () => {
  afterEach(() => process.removeAllListeners('SIGTERM'));

  test('when steps are registered in any order, then they run by phase (requests, work, producers, connections, http), last registered first within one', async () => {
    const order: string[] = [];
    const shutdown = new GracefulShutdown({ logger, timeoutMs: 1000, exit: () => undefined });
    const step = (name: string) => async () => void order.push(name);
    shutdown.onStop('producer', step('producer'), 'producers');
    shutdown.onStop('http server', step('http server'), 'http');
    shutdown.onStop('requests in flight', step('requests in flight'), 'requests');
    shutdown.onStop('probe', step('probe'), 'connections');
    shutdown.onStop('state reader', step('state reader'));
    shutdown.onStop('pending produce', step('pending produce'), 'producers');
    shutdown.onStop('consumer', step('consumer'), 'work');
    await shutdown.stop();
    expect(order).toEqual(['requests in flight', 'consumer', 'state reader', 'pending produce', 'producer', 'probe', 'http server']);
  });

  test('when stopping begins, then the process is draining before the first step runs, and stays so', async () => {
    const shutdown = new GracefulShutdown({ logger, timeoutMs: 1000, exit: () => undefined });
    const seen: boolean[] = [];
    shutdown.onStop('first', async () => void seen.push(shutdown.draining), 'requests');
    expect(shutdown.draining).toBe(false);
    const stopping = shutdown.stop();
    expect(shutdown.draining).toBe(true);
    await stopping;
    expect(seen).toEqual([true]);
    expect(shutdown.draining).toBe(true);
  });

  test('when in-flight work outlasts its share of the timeout, then the steps are told to hand it back, and the rest still fits: exit 0', async () => {
    const exits: number[] = [];
    const shutdown = new GracefulShutdown({ logger, timeoutMs: 400, handBackAfterMs: 100, exit: (code) => exits.push(code) });
    const events: string[] = [];
    const started = Date.now();
    // Stands for a consumer whose records never finish: it waits until told to hand them back.
    shutdown.onStop('consumer', ({ handBack }) => {
      return new Promise((resolve) =>
        handBack.addEventListener('abort', () => resolve(void events.push(`handed back at ${Date.now() - started}`))),
      );
    });
    shutdown.onStop('producer', async ({ handBack }) => void events.push(`producer (hand-back ${handBack.aborted})`), 'producers');
    shutdown.handleSignals();
    process.emit('SIGTERM', 'SIGTERM');
    await until(() => exits.length > 0);
    expect(events).toHaveLength(2);
    const handedBackAt = Number(/handed back at (\d+)/.exec(events[0]!)?.[1]);
    expect(handedBackAt).toBeGreaterThanOrEqual(95);
    expect(handedBackAt).toBeLessThan(300);
    expect(events[1]).toBe('producer (hand-back true)');
    expect(exits).toEqual([0]);
  });

  test('when every step is quick, then the hand-back signal is never aborted', async () => {
    const shutdown = new GracefulShutdown({ logger, timeoutMs: 1000, exit: () => undefined });
    let signal: AbortSignal | undefined;
    shutdown.onStop('consumer', async ({ handBack }) => void (signal = handBack));
    await shutdown.stop();
    expect(signal?.aborted).toBe(false);
  });
});
