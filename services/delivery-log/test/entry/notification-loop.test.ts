/**
 * The notifications' loop without infrastructure: a backlog of sends drains pass after pass at once,
 * and the evaluation still runs at its interval only, not again before every batch.
 */
import { createLogger } from '@hookstream/runtime';
import { NotificationLoop } from '../../src/entry/timers/notification-loop';

test('when full batches are sent back to back, then the next passes come at once and judge nothing until the interval passed', async () => {
  let clock = 0;
  let evaluations = 0;
  const loop = new NotificationLoop({
    evaluate: () => Promise.resolve(++evaluations),
    send: () => Promise.resolve({ claimed: 20, batch: 20 }),
    logger: createLogger({ service: 'test', level: 'silent' }),
    intervalMs: 5_000,
    now: () => clock,
  });

  const waits: number[] = [];
  for (let i = 0; i < 4; i++) {
    waits.push(await loop.pass());
    clock += 1_000;
  }
  clock = 5_000;
  await loop.pass();

  expect(waits).toEqual([0, 0, 0, 0]);
  expect(evaluations).toBe(2);
});
