/**
 * Inputs the schemas took but the store could not hold answered 500 (a store's 22008/22009): each
 * list's times, a forged cursor's, a key's expiry. Now every one is a 400 naming its field, before
 * anything reaches the store.
 */
import { Refusal } from '@hookstream/errors';
import type { z } from 'zod';
import { AdminDeliveryListQuery, AuditListQuery, DeadLetterListQuery, RotateKeyBody } from '../../src/entry/http/schemas/admin-schemas';
import { parseInput } from '../../src/entry/http/request-input';
import { DeliveryListQuery } from '../../src/entry/http/schemas/schemas';
import { RejectedWebhookListQuery, WebhookListQuery } from '../../src/entry/http/schemas/webhook-schemas';
import { decodeCursor, encodeCursor } from '../../src/adapters/store/queries/page';

/** The fields a 400 names, or the parsed value when there is none. */
function refusedFields(schema: z.ZodType, input: unknown): string[] {
  try {
    parseInput(schema, input, 'query');
    return [];
  } catch (error) {
    if (!(error instanceof Refusal) || error.httpStatus !== 400) throw error;
    return (error.fields ?? []).map((f) => `${f.field}: ${f.message}`);
  }
}

const forged = (at: string, id = 'd-1') => Buffer.from(JSON.stringify([at, id])).toString('base64url');
const lists = { DeliveryListQuery, WebhookListQuery, RejectedWebhookListQuery, AdminDeliveryListQuery, AuditListQuery };

describe.each(Object.entries(lists))('when %s is given a time the store cannot hold', (_name, schema) => {
  test.each(['0000-01-01T00:00:00Z', '1969-12-31T23:59:59Z', '9999-12-31T23:59:59-01:00'])('then from=%s is refused by name', (time) => {
    expect(refusedFields(schema, { from: time })).toEqual(['from: must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z']);
    expect(refusedFields(schema, { to: time })).toEqual(['to: must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z']);
  });

  test('then a year of five digits is refused once, for its form', () => {
    expect(refusedFields(schema, { to: '10000-01-01T00:00:00Z' })).toEqual(['to: Invalid ISO datetime']);
  });

  test('then a cursor forged to name such a time, or an id longer than any, is refused by name', () => {
    for (const cursor of [
      forged('0000-01-01T00:00:00Z'),
      forged('+010000-01-01T00:00:00Z'),
      forged('-000001-01-01T00:00:00Z'),
      forged('2026-01-01T00:00:00Z', 'd'.repeat(201)),
    ]) {
      expect(refusedFields(schema, { cursor })).toEqual(['cursor: is not a cursor this API gave']);
    }
  });

  test('then the bounds themselves and a cursor this API gave are taken', () => {
    expect(refusedFields(schema, { from: '1970-01-01T00:00:00Z', to: '9999-12-31T23:59:59Z' })).toEqual([]);
    expect(refusedFields(schema, { cursor: encodeCursor({ at: new Date('2026-11-25T10:00:00Z'), id: 'd-1' }) })).toEqual([]);
  });
});

test('when a key rotation gives an expiry out of range or an overlap out of bounds, then each is refused by name', () => {
  expect(refusedFields(RotateKeyBody, { reason: 'r', expires_at: '0000-01-01T00:00:00Z' })).toEqual([
    'expires_at: must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z',
  ]);
  expect(refusedFields(RotateKeyBody, { reason: 'r', overlap_hours: 1e300 })).toHaveLength(1);
  expect(refusedFields(RotateKeyBody, { reason: 'r', overlap_hours: 0.0001 })).toEqual([]);
});

test('when the dead letters are selected by a time out of range, then it is refused by name', () => {
  expect(refusedFields(DeadLetterListQuery, { since: '0000-01-01T00:00:00Z' })).toEqual([
    'since: must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z',
  ]);
});

test('when more than 1,000 dead letters are chosen as one comma-separated value, then it is refused by name, as an array of them is', () => {
  const chosen = (n: number) => Array.from({ length: n }, (_, i) => `0:${i}`);
  expect(refusedFields(DeadLetterListQuery, { letters: chosen(1000).join(',') })).toEqual([]);
  expect(refusedFields(DeadLetterListQuery, { letters: chosen(1001).join(',') })).toEqual([expect.stringMatching(/^letters: /)]);
  expect(refusedFields(DeadLetterListQuery, { letters: chosen(1001) })).toEqual([expect.stringMatching(/^letters: /)]);
});

test('a cursor the API gave decodes to its time and id', () => {
  const cursor = { at: new Date('2026-11-25T10:00:00.123Z'), id: 'd-1' };
  expect(decodeCursor(encodeCursor(cursor))).toEqual(cursor);
});
