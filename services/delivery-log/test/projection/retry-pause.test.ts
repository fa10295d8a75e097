/**
 * The pause before a failed batch is read again: many of them on the projection's one stopping
 * signal (a store away for minutes) leave no listener behind, and stopping ends a pause at once.
 */
import { getEventListeners } from 'node:events';
import { retryPause } from '../../src/entry/kafka/retry-pause';

test('when many failed batches have paused on the stopping signal, then no abort listener is left on it', async () => {
  const stopping = new AbortController();
  for (let i = 0; i < 50; i++) await retryPause(1, stopping.signal);
  await Promise.all(Array.from({ length: 50 }, () => retryPause(1, stopping.signal)));
  expect(getEventListeners(stopping.signal, 'abort')).toHaveLength(0);
});

test('when the projection stops during a pause, then the pause ends at once and leaves no listener', async () => {
  const stopping = new AbortController();
  const started = Date.now();
  const pausing = retryPause(60_000, stopping.signal);
  stopping.abort();
  await pausing;
  expect(Date.now() - started).toBeLessThan(1_000);
  expect(getEventListeners(stopping.signal, 'abort')).toHaveLength(0);
});
