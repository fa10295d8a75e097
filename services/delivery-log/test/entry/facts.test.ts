/*
 * The publish time a callback-request carries (the core system's record timestamp, copied by the
 * fan-out) reaches the delivery log only when the store can hold it: a producer may stamp any
 * number, and one the store refuses would fail the projection's batch on every try.
 */
import { TopicNames } from '@hookstream/kafka';
import { CallbackRequestHeaders } from '@hookstream/contract';
import { factOf } from '../../src/entry/kafka/facts';

function requestWithPublishedAt(value: string | undefined) {
  return factOf({
    topic: TopicNames.callbackRequests,
    partition: 0,
    offset: '7',
    timestamp: Date.parse('2026-11-29T12:00:00Z'),
    key: 'P-1',
    headers: value === undefined ? {} : { [CallbackRequestHeaders.publishedAt]: Buffer.from(value) },
    value: { delivery_id: 'd-1' },
  });
}

test.each([
  ['that is a time is kept', String(Date.parse('2026-11-29T11:59:59.123Z')), Date.parse('2026-11-29T11:59:59.123Z')],
  ['absent is null', undefined, null],
  ['not a number is null', 'yesterday', null],
  ['of zero is null', '0', null],
  ['past the year 9999 is null', String(Date.parse('9999-12-31T23:59:59Z') + 86_400_000), null],
  ['beyond what a Date can hold is null', '8640000000000001', null],
])('a publish time %s', (_what, header, expected) => {
  const fact = requestWithPublishedAt(header);
  expect(fact?.kind).toBe('delivery');
  expect(fact && 'publishedAt' in fact ? fact.publishedAt : 'missing').toBe(expected);
});
