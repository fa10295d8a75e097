/**
 * A test event's use case (domain/send-test-event.ts): the sample policy through the partner's body
 * mapping, a delivery id and policy number that cannot meet real ones, TEST trigger, audited, limited
 * by the minute (a place given back when nothing was written), and the answer awaited in the log.
 */
import type { CallbackRequestValue } from '@hookstream/contract';
import { NotFoundError } from '@hookstream/errors';
import type { Partner } from '@hookstream/partners';
import { readSamplePolicy } from '../../src/adapters/storage/sample-policy';
import { sendTestEvent, type TestAttempt, type TestEventDeps } from '../../src/domain/send-test-event';
import { defaultSchemasDir } from '@hookstream/kafka';

const partner = {
  partner_id: 'acme',
  name: 'Acme',
  status: 'ACTIVE',
  revision: 1,
  updated_at: 0,
  api_keys: [],
  callback_endpoints: [
    { endpoint_id: 'main', url: 'https://acme.example/cb', timeout_ms: 1000, statuses: [], product_codes: [], ordering: 'LATEST_WINS' },
  ],
  outbound_auth: null,
  body_mapping: {
    shape: 'MAPPED',
    absent_fields: 'OMIT',
    rules: [
      { source: 'policy_number', target: 'policy' },
      { source: 'status', target: 'state' },
    ],
  },
} as unknown as Partner;

function deps(answer: TestAttempt | undefined, places = 1, partners: Partner[] = [partner]) {
  const written: CallbackRequestValue[] = [];
  const released: string[] = [];
  let clock = 0;
  let taken = 0;
  const d: TestEventDeps = {
    partners: { get: (id) => partners.find((p) => p.partner_id === id) },
    samplePolicy: readSamplePolicy(defaultSchemasDir()),
    reservations: {
      reserve: () =>
        Promise.resolve(taken < places ? { reserved: true, reservationId: `r-${++taken}` } : { reserved: false, retryAfterSeconds: 42 }),
      release: (id) => {
        released.push(id);
        return Promise.resolve();
      },
    },
    callbacks: {
      write: (request) => {
        written.push(request);
        return Promise.resolve('audit-1');
      },
    },
    // The attempt reaches the log after 300 ms of (fake) time.
    attemptOf: () => Promise.resolve(clock >= 300 ? answer : undefined),
    perMinute: 10,
    graceMs: 500,
    sleep: (ms) => {
      clock += ms;
      return Promise.resolve();
    },
    now: () => clock,
  };
  return { d, written, released };
}

const answered: TestAttempt = {
  outcome: 'DELIVERED',
  http_status: 200,
  latency_ms: 12,
  error_class: null,
  response_excerpt: 'ok',
  request_headers: {},
};

test("a test event is the sample policy through the partner's mapping, marked TEST, and answers with the endpoint's answer", async () => {
  const { d, written } = deps(answered);
  const result = await sendTestEvent(d, 'acme', 'main', 'POLICY_CANCELLED');
  expect(result).toMatchObject({ answered: true, outcome: 'DELIVERED', http_status: 200, endpoint_id: 'main', status: 'POLICY_CANCELLED' });
  expect(written).toHaveLength(1);
  const request = written[0]!;
  expect(request).toMatchObject({ trigger: 'TEST', partner_id: 'acme', endpoint_id: 'main', policy_status: 'POLICY_CANCELLED' });
  expect(request.delivery_id).toMatch(/^test_[0-9a-f-]{36}$/);
  expect(request.policy_number).toMatch(/^TEST-[0-9A-F]{8}$/);
  expect(JSON.parse(request.body)).toEqual({ policy: request.policy_number, state: 'POLICY_CANCELLED' });
  expect(result.delivery_id).toBe(request.delivery_id);
});

test("an attempt not in the log within the endpoint's timeout and the grace answers answered: false, to poll", async () => {
  const { d } = deps(undefined);
  expect(await sendTestEvent(d, 'acme', 'main', 'POLICY_ACTIVE')).toMatchObject({ answered: false, outcome: null });
});

test('an endpoint not the partner’s is 404; a disabled partner 409; past the minute’s limit 429, nothing written', async () => {
  await expect(sendTestEvent(deps(answered).d, 'acme', 'other', 'POLICY_ACTIVE')).rejects.toBeInstanceOf(NotFoundError);
  await expect(sendTestEvent(deps(answered).d, 'globex', 'main', 'POLICY_ACTIVE')).rejects.toBeInstanceOf(NotFoundError);
  const disabled = deps(answered, 1, [{ ...partner, status: 'DISABLED' }]);
  await expect(sendTestEvent(disabled.d, 'acme', 'main', 'POLICY_ACTIVE')).rejects.toMatchObject({ httpStatus: 409 });
  const limited = deps(answered, 0);
  await expect(sendTestEvent(limited.d, 'acme', 'main', 'POLICY_ACTIVE')).rejects.toMatchObject({ httpStatus: 429, retryAfterSeconds: 42 });
  expect(limited.written).toEqual([]);
});
