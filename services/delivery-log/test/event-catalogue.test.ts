/**
 * The event catalogue (domain/event-catalogue.ts): every status with the endpoints that receive it,
 * its example body through the partner's own mapping, the headers a callback carries with no
 * credential's value, and a mapping that cannot build a body said so rather than failing the page.
 */
import type { Partner } from '@hookstream/partners';
import { defaultSchemasDir } from '@hookstream/kafka';
import { readSamplePolicy } from '../src/adapters/storage/sample-policy';
import { eventCatalogue, EXAMPLE_POLICY_NUMBER } from '../src/domain/event-catalogue';

const samplePolicy = readSamplePolicy(defaultSchemasDir());
const endpoint = (endpoint_id: string, more: Record<string, unknown> = {}) => ({
  endpoint_id,
  url: `https://acme.example/${endpoint_id}`,
  timeout_ms: 1000,
  statuses: [],
  product_codes: [],
  ordering: 'LATEST_WINS',
  ...more,
});
const partner = (more: Record<string, unknown> = {}) =>
  ({
    partner_id: 'acme',
    name: 'Acme',
    status: 'ACTIVE',
    revision: 1,
    updated_at: 0,
    api_keys: [],
    callback_endpoints: [
      endpoint('all', { name: 'Everything' }),
      endpoint('cancels', { statuses: ['POLICY_CANCELLED'], product_codes: ['MOTOR'] }),
      endpoint('off', { disabled: true }),
    ],
    outbound_auth: {
      method: 'HMAC_SHA256',
      api_key: { key_id: 'k1', ciphertext: 'c2VjcmV0LWFwaS1rZXk=' },
      secret: { key_id: 'k1', ciphertext: 'c2VjcmV0' },
      key_header: 'X-API-Key',
      timestamp_header: 'X-Timestamp',
      signature_header: 'X-Signature',
    },
    body_mapping: {
      shape: 'MAPPED',
      absent_fields: 'OMIT',
      rules: [
        { source: 'policy_number', target: 'policy' },
        { source: 'status', target: 'state' },
      ],
    },
    ...more,
  }) as unknown as Partner;

test('each status names the enabled endpoints whose statuses let it through, and carries its body as this partner’s mapping makes it', () => {
  const catalogue = eventCatalogue(partner(), samplePolicy);
  expect(catalogue.event_types.map((t) => [t.status, t.endpoints.map((e) => e.endpoint_id)])).toEqual([
    ['POLICY_ISSUING', ['all']],
    ['POLICY_ACTIVE', ['all']],
    ['POLICY_CANCELLED', ['all', 'cancels']],
  ]);
  expect(catalogue.event_types[2]!.endpoints).toEqual([
    { endpoint_id: 'all', name: 'Everything', product_codes: [] },
    { endpoint_id: 'cancels', name: null, product_codes: ['MOTOR'] },
  ]);
  for (const type of catalogue.event_types) {
    expect(JSON.parse(type.example_body!)).toEqual({ policy: EXAMPLE_POLICY_NUMBER, state: type.status });
    expect(type.problem).toBeNull();
  }
});

test('the headers name the delivery’s own and the method’s, the callback key redacted; nothing of a secret appears anywhere', () => {
  const catalogue = eventCatalogue(partner(), samplePolicy);
  expect(catalogue.headers.map((h) => h.name)).toEqual([
    'content-type',
    'x-hookstream-delivery-id',
    'x-hookstream-event-id',
    'x-hookstream-attempt',
    'X-API-Key',
    'X-Timestamp',
    'X-Signature',
  ]);
  expect(catalogue.headers.find((h) => h.name === 'X-API-Key')!.value).toBe('[redacted]');
  expect(catalogue.verification).toMatchObject({ method: 'HMAC_SHA256', signature_header: 'X-Signature', credential_header: 'X-API-Key' });
  expect(JSON.stringify(catalogue)).not.toMatch(/c2VjcmV0|secret-api-key/);
});

test('when the mapping cannot build a body, then each status says why instead of an example', () => {
  const broken = partner({ body_mapping: { shape: 'MAPPED', absent_fields: 'OMIT', rules: [{ source: 'no_such_field', target: 'x' }] } });
  const catalogue = eventCatalogue(broken, samplePolicy);
  for (const type of catalogue.event_types) {
    expect(type.example_body).toBeNull();
    expect(type.problem).toMatch(/^your body mapping cannot build this callback: .*no_such_field/);
  }
});

test('when callbacks carry no authentication, then no method header and no verification', () => {
  const catalogue = eventCatalogue(partner({ outbound_auth: null }), samplePolicy);
  expect(catalogue.headers).toHaveLength(4);
  expect(catalogue.verification).toBeNull();
});
