/**
 * Retrying an endpoint's failing deliveries (domain/retry-failing-deliveries.ts) on stand-in ports:
 * the hour's limit stops the run, the rest reported with it and none of them tried; a refusal of one
 * is reported and the others still retried; an error that is no refusal fails the call; an unknown
 * endpoint is 404. (Its store and the single retry now on Kafka and PostgreSQL:
 * retry-failing-deliveries.int.test.ts.)
 */
import { ErrorCodes, NotFoundError, Refusal } from '@hookstream/errors';
import { RETRY_NOW_IN_FLIGHT, type DeliveryRetrier } from '../../src/domain/retry-delivery';
import { FailingDeliveriesRetry, type FailingDelivery, type FailingDeliveriesStore } from '../../src/domain/retry-failing-deliveries';

const failing = (n: number): FailingDelivery => ({
  delivery_id: `d-${n}`,
  endpoint_id: 'main',
  policy_number: `POL-${n}`,
  created_at: new Date('2026-11-25T10:00:00Z'),
});

function setup(deliveries: FailingDelivery[], answers: Record<string, Error>, known = true) {
  const tried: string[] = [];
  const store: FailingDeliveriesStore = {
    endpointKnown: () => Promise.resolve(known),
    failingOf: (_partner, _endpoint, limit) => Promise.resolve(deliveries.slice(0, limit)),
    resendsLeft: () => Promise.resolve(5),
  };
  const retrier: Pick<DeliveryRetrier, 'retry'> = {
    retry: (_actor, _partner, id) => {
      tried.push(id);
      const error = answers[id];
      return error ? Promise.reject(error) : Promise.resolve({ delivery_id: id, retry_id: `audit-${id}` });
    },
  };
  return { tried, retry: new FailingDeliveriesRetry(store, retrier) };
}

const run = { dryRun: false, reason: 'fixed' };

test('when the hour’s limit refuses one, then it and the rest are reported with it and none of the rest is tried', async () => {
  const limit = new Refusal(ErrorCodes.TOO_MANY_REQUESTS, 'at most 5', { retryAfterSeconds: 120 });
  const { tried, retry } = setup([1, 2, 3].map(failing), { 'd-2': limit });

  const answer = await retry.retryAll('acme', 'main', run);

  expect(tried).toEqual(['d-1', 'd-2']);
  expect(answer.retried.map((d) => [d.delivery_id, d.retry_id])).toEqual([['d-1', 'audit-d-1']]);
  expect(answer.not_retried.map((d) => [d.delivery_id, d.reason, d.retry_after_seconds])).toEqual([
    ['d-2', 'hourly_limit', 120],
    ['d-3', 'hourly_limit', 120],
  ]);
});

test('when one is in flight and one no longer failing, then each is reported with its reason and the others retried', async () => {
  const { retry } = setup([1, 2, 3].map(failing), {
    'd-1': new Refusal(ErrorCodes.CONFLICT, `${RETRY_NOW_IN_FLIGHT} (accepted at …)`),
    'd-2': new Refusal(ErrorCodes.CONFLICT, 'only a failing delivery can be retried now; this one is delivered'),
  });

  const answer = await retry.retryAll('acme', 'main', run);

  expect(answer.retried.map((d) => d.delivery_id)).toEqual(['d-3']);
  expect(answer.not_retried.map((d) => [d.delivery_id, d.reason])).toEqual([
    ['d-1', 'in_flight'],
    ['d-2', 'not_failing'],
  ]);
});

test('when a retry fails for another cause, then the call fails with it', async () => {
  const { retry } = setup([failing(1)], { 'd-1': new Error('broker down') });
  await expect(retry.retryAll('acme', 'main', run)).rejects.toThrow('broker down');
});

test('when the endpoint is not the partner’s and nothing fails to it, then 404; a dry run beyond the places left lists those as hourly_limit', async () => {
  await expect(setup([], {}, false).retry.retryAll('acme', 'nope', run)).rejects.toBeInstanceOf(NotFoundError);

  const { tried, retry } = setup([1, 2, 3, 4, 5, 6].map(failing), {});
  const dry = await retry.retryAll('acme', 'main', { dryRun: true, reason: 'x' });
  expect(tried).toEqual([]);
  expect([dry.retried.length, dry.not_retried.map((d) => d.reason)]).toEqual([5, ['hourly_limit']]);
});
