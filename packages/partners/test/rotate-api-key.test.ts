import { ApiKeyHasher } from '../src/api-keys';
import { SecretBox, generateKeyringValue, parseKeyring } from '@hookstream/runtime';
import { addApiKey, createPartner, revokeApiKey, rotateApiKey, type PartnerAdminDeps } from '../src/partner-admin';
import { PartnerSpecError } from '../src/partner-spec-error';
import { defaultSchemasDir } from '@hookstream/kafka';
import { policyBodyFieldPaths } from '../src/policy-fields';

const NOW = 1_800_000_000_000;
const HOUR = 3_600_000;
const deps: PartnerAdminDeps = {
  box: new SecretBox(parseKeyring(generateKeyringValue('k1'), 'keys', 32, 32)),
  hasher: new ApiKeyHasher(parseKeyring(generateKeyringValue('p1'), 'peppers', 32)),
  policyPaths: policyBodyFieldPaths(defaultSchemasDir()),
  now: () => NOW,
};
const partner = () => createPartner({ partner_id: 'acme', name: 'ACME' }, { ...deps, now: () => NOW - 10 * HOUR }).partner;

test('a rotation issues a new key and has every other valid key expire after the overlap', () => {
  const { partner: next, apiKey, retiring } = rotateApiKey(partner(), deps, { overlapMs: 24 * HOUR });
  const old = next.api_keys[0]!;
  expect(retiring).toEqual([{ key_id: old.key_id, expires_at: NOW + 24 * HOUR }]);
  expect(old.expires_at).toBe(NOW + 24 * HOUR);
  expect(next.api_keys.find((k) => k.key_id === apiKey.keyId)).toMatchObject({ expires_at: null, revoked_at: null });
  expect(next.revision).toBe(2);
});

test('keys already revoked, expired, or expiring sooner than the overlap are left as they are', () => {
  const added = addApiKey(partner(), deps);
  const revokedId = added.apiKey.keyId;
  const firstId = added.partner.api_keys[0]!.key_id;
  // Overlap 0: the first key expires now; the revoked one is no valid key to retire.
  const once = rotateApiKey(revokeApiKey(added.partner, revokedId, deps), deps, { overlapMs: 0 });
  expect(once.retiring).toEqual([{ key_id: firstId, expires_at: NOW }]);
  const twice = rotateApiKey(once.partner, { ...deps, now: () => NOW + 1 }, { overlapMs: HOUR });
  expect(twice.retiring).toEqual([{ key_id: once.apiKey.keyId, expires_at: NOW + 1 + HOUR }]);
  const byId = new Map(twice.partner.api_keys.map((k) => [k.key_id, k]));
  expect(byId.get(firstId)?.expires_at).toBe(NOW);
  expect(byId.get(revokedId)).toMatchObject({ expires_at: null, revoked_at: NOW });
});

test('an overlap outside 0 to 30 days is refused naming the field', () => {
  for (const overlapMs of [-1, 31 * 24 * HOUR, Number.NaN]) {
    expect(() => rotateApiKey(partner(), deps, { overlapMs })).toThrow(PartnerSpecError);
  }
  expect(() => rotateApiKey(partner(), deps, { overlapMs: -1 })).toThrow(/overlap_hours/);
});
