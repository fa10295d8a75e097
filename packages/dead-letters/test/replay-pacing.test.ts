import { ReplayPacing } from '../src/replay/replay-pacing';

/** A pacing on a fake clock: waiting moves the clock; `work` is time a transaction takes. */
function fakePacing(perSecond: number) {
  let now = 1_000_000;
  const waits: number[] = [];
  const pacing = new ReplayPacing(
    perSecond,
    () => now,
    (ms) => {
      waits.push(ms);
      now += ms;
      return Promise.resolve();
    },
  );
  return { pacing, waits, advance: (ms: number) => (now += ms), now: () => now };
}

test('when the writer keeps up, then record i goes out at i / rate and one at a time', async () => {
  const { pacing, now } = fakePacing(10);
  const start = now();
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    expect(await pacing.take(100)).toBe(1);
    times.push(now() - start);
  }
  expect(times).toEqual([0, 100, 200, 300, 400]);
});

test('when a transaction takes longer than the gap, then what came due meanwhile goes in the next one, never more', async () => {
  const { pacing, advance } = fakePacing(10);
  expect(await pacing.take(100)).toBe(1);
  advance(350); // records 1, 2 and 3 came due at 100, 200, 300
  expect(await pacing.take(100)).toBe(3);
  expect(await pacing.take(100)).toBe(1); // record 4, due at 400, after a wait
});

test('when more are due than a transaction may hold, then it takes at most the maximum', async () => {
  const { pacing, advance } = fakePacing(1000);
  await pacing.take(10);
  advance(1_000);
  expect(await pacing.take(10)).toBe(10);
});
