/**
 * The error mapper's backstop: a value validation let through that the store or an Avro record
 * refuses is the request's fault (400, logged at warn), not the service's (500).
 */
import { AvroInvalidError } from '@hookstream/errors';
import { refusalOf } from '../../src/entry/http/api-router';
import { refusalBody } from '../../src/entry/http/refusals';

/** PostgreSQL's errors carry the SQLSTATE in `code`. */
const sqlError = (code: string) => Object.assign(new Error('date/time field value out of range'), { code });

test.each(['22007', '22008', '22009', '22003', '22P02', '22021'])(
  'when the store refuses a value with SQLSTATE %s, then it answers 400',
  (code) => {
    const causes: string[] = [];
    expect(refusalBody(refusalOf(sqlError(code), (cause) => causes.push(cause)))).toMatchObject({
      code: 400,
      error_code: 'INVALID_PAYLOAD_VALIDATION_ERR',
    });
    expect(causes).toEqual(['unstorable']);
  },
);

test('when an Avro record refuses a value (our codec, avsc itself, or wrapped), then it answers 400', () => {
  const refused = [
    new AvroInvalidError('value does not fit partner-config.avsc at: api_keys.0.expires_at', {
      details: { paths: ['api_keys.0.expires_at'] },
    }),
    new Error('invalid "long": 1.5'),
    new Error('could not write the partner', { cause: new Error('invalid {"type":"long"}: 1.5') }),
    // A driver's errors may come from another realm under Jest: not instanceof Error here.
    { name: 'DatabaseError', message: 'date/time field value out of range', code: '22008' },
  ];
  for (const error of refused) expect(refusalOf(error, () => {}).httpStatus).toBe(400);
});

test('when the failure is not the input, then it stays a 500 or a 503', () => {
  const causes: string[] = [];
  expect(refusalOf(new Error('boom'), (cause) => causes.push(cause)).httpStatus).toBe(500);
  expect(refusalOf(sqlError('42P01'), (cause) => causes.push(cause)).httpStatus).toBe(500);
  expect(refusalOf(new AvroInvalidError('not a Confluent-framed Avro value'), (cause) => causes.push(cause)).httpStatus).toBe(500);
  expect(refusalOf(sqlError('08006'), (cause) => causes.push(cause)).httpStatus).toBe(503);
  expect(causes).toEqual(['unexpected', 'unexpected', 'unexpected', 'unavailable']);
});

test.each([
  ['53300', 'sorry, too many clients already'],
  ['40P01', 'deadlock detected'],
  ['40001', 'could not serialize access due to concurrent update'],
  ['57014', 'canceling statement due to statement timeout'],
])('when the store answers SQLSTATE %s (%s), then it answers 503 with Retry-After', (code, message) => {
  const refusal = refusalOf(Object.assign(new Error(message), { code }), () => {});
  expect([refusal.httpStatus, refusal.retryAfterSeconds]).toEqual([503, 2]);
});

test("when no connection comes within the pool's connect timeout, or a wrapped store error says the store is away, then it answers 503 with Retry-After", () => {
  const away = [
    // pg-pool's words when connectionTimeoutMillis passes with every connection busy or the server silent.
    new Error('timeout exceeded when trying to connect'),
    new Error('Query read timeout'),
    new Error('could not reserve a resend', { cause: Object.assign(new Error('sorry, too many clients already'), { code: '53300' }) }),
  ];
  for (const error of away) expect([refusalOf(error, () => {}).httpStatus, refusalOf(error, () => {}).retryAfterSeconds]).toEqual([503, 2]);
});
