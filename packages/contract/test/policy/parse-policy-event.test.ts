import { PolicyEventError } from '../../src/policy/policy-event-error';
import { parsePolicyEventJson } from '../../src/policy/parse-policy-event';
import { policyStatusEventType } from '../../src/policy/avro-form';
import { example } from './fixtures/every-detail-event';

const type = policyStatusEventType();

/** The example with `policy` fields replaced. */
const withPolicy = (policy: Record<string, unknown>, envelope: Record<string, unknown> = {}) => ({
  ...example,
  ...envelope,
  policy: { ...example.policy, ...policy },
});

function problemsOf(input: unknown): Array<{ field: string; message: string }> {
  try {
    parsePolicyEventJson(input);
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyEventError);
    expect((error as PolicyEventError).retryable).toBe(false);
    return (error as PolicyEventError).problems;
  }
  throw new Error('expected the event to be refused');
}

describe('parsePolicyEventJson', () => {
  test('when given the avsc form (the schema example), then it is accepted unchanged and fits the Avro type', () => {
    const value = parsePolicyEventJson(example);
    expect(value).toEqual(example);
    expect(type.isValid(value)).toBe(true);
  });

  test('when given the plain contract form, then details are wrapped in their branch and open JSON becomes JSON text', () => {
    const value = parsePolicyEventJson(
      withPolicy({
        insureds: [
          { type: 'USER', detail: { full_name: 'Siti', age: 35, additional_info: { loyalty_tier: 'GOLD', points: [1, 2] } } },
          { type: 'PET', detail: { full_name: 'Mochi', pure_breed: true, vaccination: ['Rabies', { name: 'DHPP' }, 3] } },
          { type: 'EXPERIENCE', detail: { venue: 'Ubud', tickets: 2, extras: null, guests: [{ name: 'Siti' }] } },
          { type: 'SENDER', detail: { full_name: 'Dewi', additional_data: { city: 'Jakarta', zipcode: '10230' } } },
        ],
        product: { code: 'P', benefits: [{ code: 'B', term: { inclusion: ['Accidental drop', { code: 7 }], exclusion: [] } }] },
      }),
    );
    expect(value.policy.insureds).toEqual([
      {
        type: 'USER',
        detail: {
          'io.hookstream.v1.PersonDetail': { full_name: 'Siti', age: 35, additional_info: '{"loyalty_tier":"GOLD","points":[1,2]}' },
        },
      },
      {
        type: 'PET',
        detail: {
          'io.hookstream.v1.PetDetail': { full_name: 'Mochi', pure_breed: true, vaccination: ['"Rabies"', '{"name":"DHPP"}', '3'] },
        },
      },
      { type: 'EXPERIENCE', detail: { map: { venue: '"Ubud"', tickets: '2', extras: 'null', guests: '[{"name":"Siti"}]' } } },
      {
        type: 'SENDER',
        detail: { 'io.hookstream.v1.PartyDetail': { full_name: 'Dewi', additional_data: { city: 'Jakarta', zipcode: '10230' } } },
      },
    ]);
    expect(value.policy.product).toEqual({
      code: 'P',
      benefits: [{ code: 'B', term: { inclusion: ['"Accidental drop"', '{"code":7}'], exclusion: [] } }],
    });
    expect(type.isValid(value)).toBe(true);
  });

  test('when an unknown insured type has a detail, then it takes the map branch; a detail without a type too', () => {
    const value = parsePolicyEventJson(
      withPolicy({ insureds: [{ type: 'HOSPITALITY', detail: { hotel: 'Amanjiwo', nights: 3 } }, { detail: { note: 'x' } }] }),
    );
    expect(value.policy.insureds).toEqual([
      { type: 'HOSPITALITY', detail: { map: { hotel: '"Amanjiwo"', nights: '3' } } },
      { detail: { map: { note: '"x"' } } },
    ]);
  });

  test('when event_id and occurred_at are left out, then a UUID and the current time are used; occurred_at may be ISO 8601', () => {
    const { event_id: _id, occurred_at: _at, ...rest } = example;
    const value = parsePolicyEventJson(rest, { now: () => 1_767_900_000_000 });
    expect(value.event_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(value.occurred_at).toBe(1_767_900_000_000);
    expect(parsePolicyEventJson({ ...rest, occurred_at: '2026-01-08T00:00:00.500+07:00' }).occurred_at).toBe(
      Date.parse('2026-01-07T17:00:00.500Z'),
    );
  });

  test('when partner_id is missing, then the refusal names it', () => {
    const { partner_id: _p, ...rest } = example;
    expect(problemsOf(rest)).toEqual([{ field: 'partner_id', message: 'is required' }]);
  });

  test('when the status is not one of the contract, then the refusal lists the three', () => {
    expect(problemsOf(withPolicy({ status: 'ACTIVE' }))).toEqual([
      { field: 'policy.status', message: 'must be one of POLICY_ISSUING, POLICY_ACTIVE, POLICY_CANCELLED' },
    ]);
  });

  test.each([
    ['the avsc form', { 'io.hookstream.v1.GadgetDetail': { brand: 'Samsung', price: '12499000' } }],
    ['the plain form', { brand: 'Samsung', price: '12499000' }],
  ])('when a detail in %s has a string where a number is due, then the refusal names the field path', (_form, detail) => {
    const insureds = [example.policy.insureds[0], { type: 'GADGET', detail }];
    expect(problemsOf(withPolicy({ insureds }))).toEqual([{ field: 'policy.insureds[1].detail.price', message: 'must be a number' }]);
  });

  test('when fields are unknown (that Avro would drop), then each is named', () => {
    const input = withPolicy(
      {
        premium: 1,
        insureds: [{ type: 'GADGET', detail: { brand: 'Samsung', pricee: 1 } }],
        calculation: { gwp: 1, tax: 2 },
      },
      { eventid: 'x' },
    );
    expect(problemsOf(input)).toEqual(
      expect.arrayContaining([
        { field: 'eventid', message: 'unknown field' },
        { field: 'policy.premium', message: 'unknown field' },
        { field: 'policy.insureds[0].detail.pricee', message: 'unknown field' },
        { field: 'policy.calculation.tax', message: 'unknown field' },
      ]),
    );
  });

  test('when many things are wrong, then every problem is reported at once', () => {
    const input = {
      event_id: 'not-a-uuid',
      occurred_at: 'yesterday',
      version: -1,
      policy: {
        status: 'POLICY_ACTIVE',
        start_protection_at: '08/01/2026',
        calculation: { gwp: 'a lot' },
        policy_holder: 'Siti',
        documents: [{ url: 7 }, null],
        insureds: [
          { type: 'GADGET', detail: { 'io.hookstream.v1.PersonDetail': { full_name: 'Siti' } } },
          { type: 'USER', detail: { additional_info: 'GOLD' } },
          { type: 'PET', detail: { 'io.hookstream.v1.PetDetail': { vaccination: ['Rabies'] } } },
          { type: 'PET', detail: { pure_breed: 'yes' } },
        ],
      },
    };
    expect(problemsOf(input)).toEqual([
      { field: 'event_id', message: expect.stringMatching(/must be a UUID/) },
      { field: 'partner_id', message: 'is required' },
      { field: 'occurred_at', message: expect.stringMatching(/epoch milliseconds .* or an ISO 8601 date-time with an offset/) },
      { field: 'version', message: expect.stringMatching(/must be an integer ≥ 0/) },
      { field: 'policy.policy_number', message: 'is required' },
      { field: 'policy.start_protection_at', message: expect.stringMatching(/must be an ISO 8601 date-time/) },
      { field: 'policy.calculation.gwp', message: 'must be a number' },
      { field: 'policy.policy_holder', message: 'must be an object' },
      { field: 'policy.insureds[0].detail', message: 'an insured with type GADGET takes a GadgetDetail detail, not PersonDetail' },
      { field: 'policy.insureds[1].detail.additional_info', message: 'must be an object' },
      { field: 'policy.insureds[2].detail.vaccination[0]', message: expect.stringMatching(/must be JSON text/) },
      { field: 'policy.insureds[3].detail.pure_breed', message: 'must be true or false' },
      { field: 'policy.documents[0].url', message: 'must be a string' },
      { field: 'policy.documents[1]', message: 'must not be null' },
    ]);
  });

  test('when the input is not an object, then it is refused as a whole', () => {
    expect(problemsOf([example])).toEqual([{ field: '(event)', message: 'must be a JSON object' }]);
  });

  test('when the refusal is shown, then each problem is one line with its field', () => {
    const { partner_id: _p, ...rest } = example;
    expect(() => parsePolicyEventJson({ ...rest, policy: { ...example.policy, status: 'X' } })).toThrow(
      'policy event refused:\n  partner_id: is required\n  policy.status: must be one of POLICY_ISSUING, POLICY_ACTIVE, POLICY_CANCELLED',
    );
  });
});
