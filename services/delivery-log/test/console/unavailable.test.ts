import { listenToApi } from '../../console/src/api-notices';
import { retryDelayMs, whileUnavailable } from '../../console/src/unavailable';

const unavailable = (retryAfterSeconds?: number) => Object.assign(new Error('the service is starting'), { status: 503, retryAfterSeconds });

test('the pauses grow 1, 2, 4, 8 s up to 15 s, and follow a longer Retry-After', () => {
  expect([0, 1, 2, 3, 4, 5].map((round) => retryDelayMs(round))).toEqual([1000, 2000, 4000, 8000, 15_000, 15_000]);
  expect(retryDelayMs(0, 2)).toBe(2000);
  expect(retryDelayMs(3, 2)).toBe(8000);
  expect(retryDelayMs(0, 3600)).toBe(60_000);
});

test('when a read answers 503, then it is asked again after the pause, and the page hears it is waiting until it is answered', async () => {
  const waiting: boolean[] = [];
  const stop = listenToApi({ sessionEnded: () => undefined, waitingChanged: (w) => waiting.push(w) });
  const pauses: number[] = [];
  let calls = 0;
  const answer = await whileUnavailable(
    async () => {
      calls += 1;
      if (calls < 3) throw unavailable(2);
      return 'answered';
    },
    async (ms) => {
      pauses.push(ms);
    },
  );
  stop();
  expect(answer).toBe('answered');
  expect(pauses).toEqual([2000, 2000]);
  expect(waiting).toEqual([true, false]);
});

test('when a read fails otherwise, or stays unavailable past the limit, then its failure is thrown', async () => {
  const refused = Object.assign(new Error('no'), { status: 404 });
  await expect(
    whileUnavailable(
      () => Promise.reject(refused),
      async () => undefined,
    ),
  ).rejects.toBe(refused);
  let calls = 0;
  await expect(
    whileUnavailable(
      () => {
        calls += 1;
        return Promise.reject(unavailable());
      },
      async () => undefined,
    ),
  ).rejects.toMatchObject({ status: 503 });
  // 1 + 2 + 4 + 8 + 15 × 7 s = 120 s of pauses between 12 calls: the twelfth's 503 is past the limit.
  expect(calls).toBe(12);
});
