import pino from 'pino';
import { FAILURE_BACKOFF_MS, MAX_FAILURE_BACKOFF_MS, Rewinds } from '../../src/group-member/rewinds';
import { PartitionProgress } from '../../src/group-member/partition-progress';
import type { Consumer } from '../../src/types';

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

/** Rewinds with a client consumer that only notes when the partition is paused and resumed. */
function rewindsNoting() {
  const events: Array<{ what: 'pause' | 'resume'; at: number }> = [];
  const consumer = {
    seek: () => undefined,
    pause: () => events.push({ what: 'pause', at: Date.now() }),
    resume: () => events.push({ what: 'resume', at: Date.now() }),
  } as unknown as Consumer;
  const rewinds = new Rewinds({
    logger: pino({ level: 'silent' }),
    consumer: () => consumer,
    stopping: () => false,
    forget: () => undefined,
  });
  /** Fails the partition once and says how long it rested before it was read again. */
  const restAfterFailure = async (): Promise<number> => {
    const from = events.length;
    rewinds.rewind(new PartitionProgress('requests', 0, 0, 0n));
    await jest.advanceTimersByTimeAsync(MAX_FAILURE_BACKOFF_MS);
    const [pause, resume] = events.slice(from);
    expect([pause?.what, resume?.what]).toEqual(['pause', 'resume']);
    return resume!.at - pause!.at;
  };
  return { rewinds, restAfterFailure };
}

test('a partition that fails again and again rests twice as long each time, up to a cap, rather than repeating its work every second', async () => {
  const { restAfterFailure } = rewindsNoting();
  const rests: number[] = [];
  for (let i = 0; i < 7; i++) rests.push(await restAfterFailure());
  expect(rests).toEqual([1, 2, 4, 8, 16, 16, 16].map((n) => Math.min(n * FAILURE_BACKOFF_MS, MAX_FAILURE_BACKOFF_MS)));
});

test("once a round commits what the partition did, its next failure rests the shortest time again; another partition's commit does not count", async () => {
  const { rewinds, restAfterFailure } = rewindsNoting();
  for (let i = 0; i < 3; i++) await restAfterFailure();
  rewinds.recovered('requests', 1);
  expect(await restAfterFailure()).toBe(8 * FAILURE_BACKOFF_MS);
  rewinds.recovered('requests', 0);
  expect(await restAfterFailure()).toBe(FAILURE_BACKOFF_MS);
});
