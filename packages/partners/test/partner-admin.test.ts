import { readFileSync } from 'node:fs';
import path from 'node:path';
import avro from 'avsc';
import { ApiKeyHasher } from '../src/api-keys';
import { SecretBox, generateKeyringValue, parseKeyring } from '@hookstream/runtime';
import {
  addApiKey,
  createPartner,
  describePartner,
  revokeApiKey,
  setPartnerStatus,
  updatePartner,
  type PartnerAdminDeps,
} from '../src/partner-admin';
import { defaultSchemasDir, readSchemaFile } from '@hookstream/kafka';
import { partnerFromRecord, partnerToRecord, secretContext } from '../src/model';
import { NotFoundError } from '@hookstream/errors';
import { policyBodyFieldPaths } from '../src/policy-fields';

let clock = 1_800_000_000_000;
const deps: PartnerAdminDeps = {
  box: new SecretBox(parseKeyring(generateKeyringValue('k1'), 'keys', 32, 32)),
  hasher: new ApiKeyHasher(parseKeyring(generateKeyringValue('p1'), 'peppers', 32)),
  policyPaths: policyBodyFieldPaths(defaultSchemasDir()),
  now: () => clock++,
};
const spec = {
  partner_id: 'acme',
  name: 'ACME',
  callback_endpoints: [{ url: 'https://partner.example/cb', statuses: ['POLICY_ACTIVE'] }],
  outbound_auth: { method: 'HMAC_SHA256', api_key: 'acme-outbound-key', secret: 'acme-hmac-secret' },
  body: { rules: [{ source: 'status', target: 'actual_status' }] },
};
const partnerType = readSchemaFile(defaultSchemasDir(), 'partner-config.avsc').type;

describe('partner onboarding use cases', () => {
  test('when a partner is created, then it has one hashed key, encrypted secrets bound to it, and a record that fits the Avro schema', () => {
    const { partner, apiKey } = createPartner(spec, deps);
    expect(partner).toMatchObject({ partner_id: 'acme', status: 'ACTIVE', revision: 1 });
    expect(partner.api_keys).toHaveLength(1);
    expect(partner.api_keys[0]!.key_hash).toBe(deps.hasher.hash(apiKey.key).hash);
    const auth = partner.outbound_auth;
    if (auth?.method !== 'HMAC_SHA256') throw new Error('expected HMAC_SHA256');
    expect(deps.box.decrypt(auth.secret, secretContext('acme', 'secret'))).toBe('acme-hmac-secret');
    expect(deps.box.decrypt(auth.api_key, secretContext('acme', 'api_key'))).toBe('acme-outbound-key');
    expect(partner.body_mapping).toEqual({
      shape: 'FULL',
      rules: [{ source: 'status', target: 'actual_status', format: null, time_zone: null }],
      signature_field: null,
      absent_fields: 'OMIT',
    });

    const bytes = partnerType.toBuffer(partnerToRecord(partner));
    const text = bytes.toString('latin1');
    for (const plain of [apiKey.key, 'acme-hmac-secret', 'acme-outbound-key']) expect(text).not.toContain(plain);
    expect(partnerFromRecord(partnerType.fromBuffer(bytes) as Record<string, unknown>)).toEqual(partner);
  });

  test('when shown, then no secret, ciphertext or key hash appears', () => {
    const { partner, apiKey } = createPartner(spec, deps);
    const shown = JSON.stringify(describePartner(partner));
    for (const hidden of [apiKey.key, 'acme-hmac-secret', 'acme-outbound-key', partner.api_keys[0]!.key_hash])
      expect(shown).not.toContain(hidden);
    expect(shown).toContain('********');
    expect(shown).toContain(partner.api_keys[0]!.display_prefix);
  });

  test('when updated without outbound_auth, then the ciphertexts are kept byte for byte and the revision rises', () => {
    const { partner } = createPartner(spec, deps);
    const next = updatePartner(partner, { name: 'ACME Insurance', callback_endpoints: [{ url: 'https://partner.example/v2' }] }, deps);
    expect(next.revision).toBe(2);
    expect(next.name).toBe('ACME Insurance');
    expect(next.callback_endpoints[0]!.url).toBe('https://partner.example/v2');
    expect(next.outbound_auth).toEqual(partner.outbound_auth);
    expect(next.api_keys).toEqual(partner.api_keys);
  });

  test('when updated with a new auth method, then its secrets are required and encrypted', () => {
    const { partner } = createPartner(spec, deps);
    expect(() => updatePartner(partner, { outbound_auth: { method: 'BASIC', username: 'u' } }, deps)).toThrow(/outbound_auth.password/);
    const next = updatePartner(partner, { outbound_auth: { method: 'BASIC', username: 'u', password: 'pw-123' } }, deps);
    if (next.outbound_auth?.method !== 'BASIC') throw new Error('expected BASIC');
    expect(deps.box.decrypt(next.outbound_auth.password, secretContext('acme', 'password'))).toBe('pw-123');
  });

  test('when the partner id is changed by an update, then it is refused', () => {
    const { partner } = createPartner(spec, deps);
    expect(() => updatePartner(partner, { partner_id: 'other' }, deps)).toThrow(/partner_id: cannot be changed/);
  });

  test('rotation: a second key works beside the first until the first is revoked; revoking twice or an unknown key is refused', () => {
    const { partner } = createPartner(spec, deps);
    const { partner: two, apiKey } = addApiKey(partner, deps, { expiresAt: clock + 60_000 });
    expect(two.api_keys.map((k) => k.revoked_at)).toEqual([null, null]);
    expect(two.api_keys[1]!.expires_at).toBeGreaterThan(clock);
    expect(two.api_keys[1]!.key_hash).toBe(deps.hasher.hash(apiKey.key).hash);
    const revoked = revokeApiKey(two, partner.api_keys[0]!.key_id, deps);
    expect(revoked.api_keys[0]!.revoked_at).not.toBeNull();
    expect(revoked.api_keys[1]!.revoked_at).toBeNull();
    expect(() => revokeApiKey(revoked, partner.api_keys[0]!.key_id, deps)).toThrow(/already revoked/);
    // An unknown key is a resource not found (404 in the API, exit 3 in the CLI), not a bad field.
    expect(() => revokeApiKey(revoked, 'key_nope', deps)).toThrow(NotFoundError);
    expect(() => addApiKey(partner, deps, { expiresAt: 1 })).toThrow(/future/);
  });

  test('disable and enable change only the status and the revision', () => {
    const { partner } = createPartner(spec, deps);
    const disabled = setPartnerStatus(partner, 'DISABLED', deps);
    expect(disabled).toMatchObject({ status: 'DISABLED', revision: 2, api_keys: partner.api_keys });
    expect(setPartnerStatus(disabled, 'ACTIVE', deps)).toMatchObject({ status: 'ACTIVE', revision: 3 });
  });

  test.each([
    { method: 'API_KEY', api_key: 'k', header_name: 'X-API-Key' },
    {
      method: 'MD5',
      secret: 's',
      parts: [{ kind: 'SECRET' }, { kind: 'LITERAL', value: '|' }, { kind: 'BODY_FIELD', path: 'policy_number' }],
      placement: 'HEADER',
      target: 'X-Sign',
    },
    { method: 'BEARER_STATIC', token: 't' },
    { method: 'BEARER_JWT', secret: 's', issuer: 'HOOKSTREAM', algorithm: 'HS512', extra_claims: { partner: 'acme' } },
    {
      method: 'BEARER_FETCHED',
      token_url: 'https://auth.example/token',
      secret_headers: { Authorization: 'Basic abc' },
      request_body: 'grant_type=client_credentials',
    },
    { method: 'BASIC', username: 'u', password: 'p' },
    { method: 'STANDARD_WEBHOOKS', secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` },
  ])('every auth method round-trips through the Avro record: $method', (auth) => {
    const { partner } = createPartner({ ...spec, outbound_auth: auth }, deps);
    const decoded = partnerFromRecord(partnerType.fromBuffer(partnerType.toBuffer(partnerToRecord(partner))) as Record<string, unknown>);
    expect(decoded).toEqual(partner);
    expect(decoded.outbound_auth?.method).toBe(auth.method);
    const shown = JSON.stringify(describePartner(decoded));
    for (const secret of ['Basic abc', 'grant_type=client_credentials', '"t"', '"p"', '"s"']) expect(shown).not.toContain(secret);
  });

  test('when a record written before body_mapping.absent_fields existed is read, then the mapping says OMIT (BACKWARD compatible)', () => {
    const schema = JSON.parse(readFileSync(path.join(defaultSchemasDir(), 'partner-config.avsc'), 'utf8'));
    const withoutAbsentFields = JSON.parse(JSON.stringify(schema), (key, value) =>
      key === 'fields' && Array.isArray(value) ? value.filter((f: { name?: string }) => f.name !== 'absent_fields') : value,
    );
    const oldType = avro.Type.forSchema(withoutAbsentFields);
    const { partner } = createPartner(spec, deps);
    const { absent_fields: _dropped, ...oldMapping } = partner.body_mapping;
    const oldBytes = oldType.toBuffer(partnerToRecord({ ...partner, body_mapping: oldMapping as typeof partner.body_mapping }));
    const read = partnerType.fromBuffer(oldBytes, partnerType.createResolver(oldType)) as Record<string, unknown>;
    expect(partnerFromRecord(read).body_mapping.absent_fields).toBe('OMIT');
  });
});
