import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { PartnerSpecError } from '../src/partner-spec-error';
import { bodyMappingFromSpec } from '../src/partner-from-spec';
import { defaultSchemasDir } from '@hookstream/kafka';
import { parsePartnerSpec } from '../src/partner-spec';
import { policyBodyFieldPaths } from '../src/policy-fields';

const paths = policyBodyFieldPaths(defaultSchemasDir());
const hmac = { method: 'HMAC_SHA256', api_key: 'partner-key', secret: 'partner-secret' };
const base = { name: 'ACME', callback_endpoints: [{ url: 'https://partner.example/callbacks' }], outbound_auth: hmac };

function refusal(input: unknown): Array<{ field: string; message: string }> {
  try {
    parsePartnerSpec(input, paths);
  } catch (error) {
    expect(error).toBeInstanceOf(PartnerSpecError);
    return (error as PartnerSpecError).problems;
  }
  throw new Error('expected the spec to be refused');
}

describe('partner spec validation', () => {
  test('the known body fields come from the Avro policy record, nested ones included', () => {
    expect(paths).toEqual(expect.objectContaining({}));
    for (const p of [
      'policy_number',
      'status',
      'start_protection_at',
      'partner_transaction_number',
      'policy_holder.full_name',
      'calculation.gwp',
      'documents',
      'policies',
    ]) {
      expect(paths.has(p)).toBe(true);
    }
    expect(paths.has('event_id')).toBe(false);
  });

  test('a full spec is accepted with its defaults', () => {
    const spec = parsePartnerSpec(base, paths);
    expect(spec.status).toBe('ACTIVE');
    expect(spec.callback_endpoints[0]).toEqual({
      name: null,
      description: null,
      disabled: false,
      url: 'https://partner.example/callbacks',
      timeout_ms: 10000,
      statuses: [],
      product_codes: [],
      ordering: 'LATEST_WINS',
    });
    expect(spec.outbound_auth).toMatchObject({ key_header: 'X-API-Key', timestamp_header: 'X-Timestamp', signature_header: 'X-Signature' });
    expect(spec.body).toEqual({ shape: 'FULL', rules: [], absent_fields: 'OMIT' });
  });

  test.each<[string, unknown, string, RegExp]>([
    [
      'an unknown auth method',
      { ...base, outbound_auth: { method: 'OAUTH1', secret: 'x' } },
      'outbound_auth.method',
      /must be one of API_KEY, HMAC_SHA256/,
    ],
    [
      'HMAC without a secret',
      { ...base, outbound_auth: { method: 'HMAC_SHA256', api_key: 'k' } },
      'outbound_auth.secret',
      /secret is required/,
    ],
    ['HMAC with an empty secret', { ...base, outbound_auth: { ...hmac, secret: '' } }, 'outbound_auth.secret', /must not be empty/],
    ['the mask from `show` as a secret', { ...base, outbound_auth: { ...hmac, secret: '********' } }, 'outbound_auth.secret', /mask/],
    [
      'a malformed callback URL',
      { ...base, callback_endpoints: [{ url: 'not a url' }] },
      'callback_endpoints[0].url',
      /absolute http or https URL/,
    ],
    [
      'a non-http callback URL',
      { ...base, callback_endpoints: [{ url: 'ftp://partner.example/x' }] },
      'callback_endpoints[0].url',
      /http or https, not ftp/,
    ],
    [
      'credentials in the callback URL',
      { ...base, callback_endpoints: [{ url: 'https://u:p@partner.example/' }] },
      'callback_endpoints[0].url',
      /credentials/,
    ],
    [
      'an unknown policy status filter',
      { ...base, callback_endpoints: [{ url: 'https://p.example', statuses: ['POLICY_LAPSED'] }] },
      'callback_endpoints[0].statuses[0]',
      /POLICY_ISSUING/,
    ],
    [
      'a timeout of 0',
      { ...base, callback_endpoints: [{ url: 'https://p.example', timeout_ms: 0 }] },
      'callback_endpoints[0].timeout_ms',
      /at least 100/,
    ],
    [
      'an unknown ordering',
      { ...base, callback_endpoints: [{ url: 'https://p.example', ordering: 'fifo' }] },
      'callback_endpoints[0].ordering',
      /LATEST_WINS/,
    ],
    [
      'a mapping naming an unknown field',
      { ...base, body: { shape: 'mapped', rules: [{ source: 'policy_numbr' }] } },
      'body.rules[0].source',
      /"policy_numbr" is not a field of the policy body/,
    ],
    [
      'a nested field in the FULL shape',
      { ...base, body: { rules: [{ source: 'policy_holder.email', target: 'email' }] } },
      'body.rules[0].source',
      /only the MAPPED shape/,
    ],
    [
      'a simplified body naming a full-body field',
      { ...base, body: { shape: 'simplified_policies', rules: [{ source: 'insureds' }] } },
      'body.rules[0].source',
      /simplified policies body/,
    ],
    ['MAPPED without rules', { ...base, body: { shape: 'MAPPED' } }, 'body.rules', /at least one rule/],
    [
      'two rules with one target',
      { ...base, body: { shape: 'MAPPED', rules: [{ source: 'status' }, { source: 'policy_holder.email', target: 'status' }] } },
      'body.rules[1].target',
      /also the target/,
    ],
    [
      'DATE_TIME_ZONE without a zone',
      { ...base, body: { rules: [{ source: 'start_protection_at', format: 'date-time-zone' }] } },
      'body.rules[0].time_zone',
      /required/,
    ],
    [
      'an unknown time zone',
      { ...base, body: { rules: [{ source: 'start_protection_at', format: 'date-only', time_zone: 'Mars/Olympus' }] } },
      'body.rules[0].time_zone',
      /IANA/,
    ],
    [
      'an unknown format',
      { ...base, body: { rules: [{ source: 'start_protection_at', format: 'epoch' }] } },
      'body.rules[0].format',
      /DATE_ONLY/,
    ],
    ['an unknown top-level field', { ...base, callbackUrl: 'https://x' }, '(spec)', /unknown field\(s\): callbackUrl/],
    ['a field of another auth method', { ...base, outbound_auth: { ...hmac, token: 't' } }, 'outbound_auth', /unknown field\(s\): token/],
    [
      'callbacks without outbound auth',
      { name: 'ACME', callback_endpoints: [{ url: 'https://p.example' }] },
      'outbound_auth',
      /required when the partner has callback endpoints/,
    ],
    ['no name', { callback_endpoints: [] }, 'name', /.+/],
    ['a partner id with capitals', { ...base, partner_id: 'ACME' }, 'partner_id', /lower-case/],
    [
      'MD5 without the secret among its parts',
      {
        ...base,
        outbound_auth: {
          method: 'MD5',
          secret: 's',
          parts: [{ kind: 'BODY_FIELD', path: 'policy_number' }],
          placement: 'HEADER',
          target: 'X-Sign',
        },
      },
      'outbound_auth.parts',
      /SECRET/,
    ],
    [
      'MD5 over a field the body does not have',
      {
        ...base,
        outbound_auth: {
          method: 'MD5',
          secret: 's',
          parts: [{ kind: 'SECRET' }, { kind: 'BODY_FIELD', path: 'start_date' }],
          placement: 'BODY_FIELD',
          target: 'Sign',
        },
      },
      'outbound_auth.parts[1].path',
      /not a field of the body/,
    ],
    [
      'MD5 writing over a body field',
      { ...base, outbound_auth: { method: 'MD5', secret: 's', parts: [{ kind: 'SECRET' }], placement: 'BODY_FIELD', target: 'status' } },
      'outbound_auth.target',
      /already a field/,
    ],
    [
      'a JWT setting exp itself',
      { ...base, outbound_auth: { method: 'BEARER_JWT', secret: 's', issuer: 'HOOKSTREAM', extra_claims: { exp: 1 } } },
      'outbound_auth.extra_claims',
      /iss, exp/,
    ],
    ['a JWT without issuer', { ...base, outbound_auth: { method: 'BEARER_JWT', secret: 's' } }, 'outbound_auth.issuer', /.+/],
    [
      'a JWT with RS256',
      { ...base, outbound_auth: { method: 'BEARER_JWT', secret: 's', issuer: 'X', algorithm: 'RS256' } },
      'outbound_auth.algorithm',
      /HS256/,
    ],
    [
      'a fetched token from a non-http URL',
      { ...base, outbound_auth: { method: 'BEARER_FETCHED', token_url: 'file:///etc/passwd' } },
      'outbound_auth.token_url',
      /http or https/,
    ],
    [
      'a Basic user name with a colon',
      { ...base, outbound_auth: { method: 'BASIC', username: 'a:b', password: 'p' } },
      'outbound_auth.username',
      /":"/,
    ],
    [
      'a Standard Webhooks secret without whsec_',
      { ...base, outbound_auth: { method: 'STANDARD_WEBHOOKS', secret: 'plain' } },
      'outbound_auth.secret',
      /whsec_/,
    ],
    [
      'an invalid API key header name',
      { ...base, outbound_auth: { method: 'API_KEY', api_key: 'k', header_name: 'x api key' } },
      'outbound_auth.header_name',
      /header name/,
    ],
  ])('when the spec has %s, then it is refused at the field named', (_what, input, field, message) => {
    const problems = refusal(input);
    const problem = problems.find((p) => p.field === field);
    expect(problem).toBeDefined();
    expect(problem!.message).toMatch(message);
  });

  test('every problem is reported at once', () => {
    const problems = refusal({ name: '', callback_endpoints: [{ url: 'x' }], outbound_auth: { method: 'HMAC_SHA256' } });
    expect(problems.map((p) => p.field)).toEqual(
      expect.arrayContaining(['name', 'callback_endpoints[0].url', 'outbound_auth.api_key', 'outbound_auth.secret']),
    );
  });

  test('the two mappings of the contract are accepted: a rename, and a reduced body with a date-only field and an MD5 Sign field', () => {
    const renamed = parsePartnerSpec({ ...base, body: { rules: [{ source: 'status', target: 'actual_status' }] } }, paths);
    expect(renamed.body.rules).toEqual([{ source: 'status', target: 'actual_status' }]);
    // The reduced body is the contract's example, as examples/partners/md5-reduced-body.yaml writes it.
    const example = path.join(__dirname, '..', '..', '..', 'examples', 'partners', 'md5-reduced-body.yaml');
    const reduced = parsePartnerSpec(parseYaml(readFileSync(example, 'utf8')), paths);
    expect(reduced.body.shape).toBe('MAPPED');
    expect(reduced.body.absent_fields).toBe('OMIT');
    expect(reduced.outbound_auth).toMatchObject({ method: 'MD5', placement: 'BODY_FIELD', target: 'Sign' });
  });

  test.each([
    ['null', 'NULL'],
    ['NULL', 'NULL'],
    [null, 'NULL'],
    ['omit', 'OMIT'],
  ])('when body.absent_fields is %j, then the mapping says %s', (given, wanted) => {
    const spec = parsePartnerSpec({ ...base, body: { absent_fields: given } }, paths);
    expect(spec.body.absent_fields).toBe(wanted);
    expect(bodyMappingFromSpec(spec).absent_fields).toBe(wanted);
  });

  test('when body.absent_fields is not omit or null, then it is refused naming the field', () => {
    expect(refusal({ ...base, body: { absent_fields: 'empty' } })).toEqual([
      { field: 'body.absent_fields', message: expect.stringMatching(/OMIT.*NULL/) },
    ]);
  });
});
