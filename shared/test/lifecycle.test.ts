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
