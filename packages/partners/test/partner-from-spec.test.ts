import { SecretBox, generateKeyringValue, parseKeyring } from '@hookstream/runtime';
import { bodyMappingFromSpec, endpointsFromSpec, outboundAuthFromSpec } from '../src/partner-from-spec';
import { defaultSchemasDir } from '@hookstream/kafka';
import { parsePartnerSpec } from '../src/partner-spec';
import { policyBodyFieldPaths } from '../src/policy-fields';
import { secretContext } from '../src/model';

const paths = policyBodyFieldPaths(defaultSchemasDir());
const box = new SecretBox(parseKeyring(generateKeyringValue('k1'), 'keys', 32, 32));
const md5 = { method: 'MD5', secret: 'md5-secret', parts: [{ kind: 'SECRET' }, { kind: 'LITERAL', value: '|' }], placement: 'body_field' };

describe('partner record parts from a spec', () => {
  test('when endpoints have no endpoint_id, then each gets ep-<its position>; a given id is kept', () => {
    const spec = parsePartnerSpec(
      {
        name: 'ACME',
        callback_endpoints: [
          { url: 'https://a.example/' },
          { url: 'https://b.example/', endpoint_id: 'orders' },
          { url: 'https://c.example/' },
        ],
        outbound_auth: { method: 'BEARER_STATIC', token: 't' },
      },
      paths,
    );
    expect(endpointsFromSpec(spec).map((e) => e.endpoint_id)).toEqual(['ep-1', 'orders', 'ep-3']);
  });

  test('when MD5 puts its digest in a body field, then that field is the signature field; in a header, there is none', () => {
    const inBody = parsePartnerSpec({ name: 'ACME', outbound_auth: { ...md5, target: 'Sign' } }, paths);
    expect(bodyMappingFromSpec(inBody)).toMatchObject({ signature_field: 'Sign', rules: [], shape: 'FULL' });
    const inHeader = parsePartnerSpec({ name: 'ACME', outbound_auth: { ...md5, placement: 'header', target: 'X-Sign' } }, paths);
    expect(bodyMappingFromSpec(inHeader).signature_field).toBeNull();
  });

  test('when a spec has secrets, then each is sealed for its partner and field, and only opens there', () => {
    const spec = parsePartnerSpec(
      {
        name: 'ACME',
        outbound_auth: {
          method: 'BEARER_FETCHED',
          token_url: 'https://idp.example/token',
          secret_headers: { 'X-Client-Secret': 'cs' },
          request_body: 'grant_type=client_credentials',
        },
      },
      paths,
    );
    const auth = outboundAuthFromSpec(spec, 'acme', box);
    if (auth?.method !== 'BEARER_FETCHED') throw new Error('expected BEARER_FETCHED');
    expect(box.decrypt(auth.secret_headers['X-Client-Secret']!, secretContext('acme', 'secret_headers.X-Client-Secret'))).toBe('cs');
    expect(box.decrypt(auth.request_body_secret!, secretContext('acme', 'request_body_secret'))).toBe('grant_type=client_credentials');
    expect(() => box.decrypt(auth.request_body_secret!, secretContext('other', 'request_body_secret'))).toThrow();
    expect(JSON.stringify(auth)).not.toContain('grant_type');
    expect(outboundAuthFromSpec(parsePartnerSpec({ name: 'ACME' }, paths), 'acme', box)).toBeNull();
  });
});
