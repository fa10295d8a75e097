import { Interrupted, allOrFirstFailure, endedByInterrupt, sleepUnlessAborted, throwIfInterrupted } from '../../src/stack/interruption';
import { portPreference } from '../../src/stack/ports';

describe('interruption', () => {
  test('when the first of several tasks fails, then the others are aborted and its error is thrown', async () => {
    const started = Date.now();
    let otherSawAbort = false;
    const failing = async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      throw new Error('the registry died');
    };
    const waiting = async (signal: AbortSignal) => {
      try {
        await sleepUnlessAborted(60_000, signal);
      } finally {
        otherSawAbort = signal.aborted;
      }
    };
    await expect(allOrFirstFailure<[void, void]>([failing, waiting], new AbortController().signal)).rejects.toThrow('the registry died');
    expect(otherSawAbort).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test('when every task succeeds, then their results come back in order', async () => {
    const results = await allOrFirstFailure<[number, string]>([async () => 1, async () => 'two'], new AbortController().signal);
    expect(results).toEqual([1, 'two']);
  });

  test('when the signal is aborted for any reason, then throwIfInterrupted throws Interrupted', () => {
    const controller = new AbortController();
    expect(() => throwIfInterrupted(controller.signal)).not.toThrow();
    controller.abort(new Error('something else'));
    expect(() => throwIfInterrupted(controller.signal)).toThrow(Interrupted);
  });

  test('when a child ended from Ctrl-C (a JVM exits 130) but not from our own timeout, then it counts as interrupted', () => {
    expect(endedByInterrupt({ code: 130 }, undefined)).toBe(true);
    expect(endedByInterrupt({ code: null, signal: 'SIGINT' }, undefined)).toBe(true);
    expect(endedByInterrupt({ code: null, signal: 'SIGTERM', killed: true }, undefined)).toBe(false);
    expect(endedByInterrupt({ code: 1 }, undefined)).toBe(false);
  });

  test('when HOOKSTREAM_PORTS is random, unset, or wrong, then the preference follows or the setting is refused', () => {
    expect(portPreference({ HOOKSTREAM_PORTS: 'random' })).toBe('random');
    expect(portPreference({})).toBe('defaults');
    expect(() => portPreference({ HOOKSTREAM_PORTS: 'free' })).toThrow(/HOOKSTREAM_PORTS/);
  });
});
