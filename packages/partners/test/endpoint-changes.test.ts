import { ApiKeyHasher } from '../src/api-keys';
import { SecretBox, generateKeyringValue, parseKeyring } from '@hookstream/runtime';
import { defaultSchemasDir, readSchemaFile } from '@hookstream/kafka';
import { createPartner, describePartner, updatePartner, type PartnerAdminDeps } from '../src/partner-admin';
import { addOwnEndpoint, deleteOwnEndpoint, editOwnEndpoint } from '../src/endpoint-changes';
import { endpointWants } from '../src/endpoint-subscription';
import { partnerFromRecord, partnerToRecord } from '../src/model';
import { policyBodyFieldPaths } from '../src/policy-fields';
import { rotateSigningSecret } from '../src/signing-secret';

const deps: PartnerAdminDeps = {
  box: new SecretBox(parseKeyring(generateKeyringValue('k1'), 'keys', 32, 32)),
  hasher: new ApiKeyHasher(parseKeyring(generateKeyringValue('p1'), 'peppers', 32)),
  policyPaths: policyBodyFieldPaths(defaultSchemasDir()),
};
const { partner } = createPartner(
  {
    partner_id: 'acme',
    name: 'ACME',
    callback_endpoints: [{ endpoint_id: 'main', url: 'https://partner.example/cb' }],
    outbound_auth: { method: 'STANDARD_WEBHOOKS', secret: `whsec_${Buffer.alloc(24, 3).toString('base64')}` },
  },
  deps,
);
const partnerType = readSchemaFile(defaultSchemasDir(), 'partner-config.avsc').type;
const problemsOf = (change: () => unknown) => {
  try {
    change();
  } catch (error) {
    return (error as { problems?: unknown; message: string }).problems ?? (error as Error).message;
  }
  throw new Error('not refused');
};

describe("a partner's own endpoint changes", () => {
  test('when an endpoint is named and described, then both are trimmed, kept through the Avro record, and too long is refused naming each', () => {
    const { partner: next, endpoint } = addOwnEndpoint(
      partner,
      { url: 'https://partner.example/claims', name: ' Claims system ', description: 'For claims' },
      deps,
    );
    expect(endpoint).toMatchObject({ name: 'Claims system', description: 'For claims' });
    const decoded = partnerFromRecord(partnerType.fromBuffer(partnerType.toBuffer(partnerToRecord(next))) as Record<string, unknown>);
    expect(decoded.callback_endpoints[1]).toMatchObject({ name: 'Claims system', description: 'For claims' });
    // A record of a partner without names (an older one) still encodes: the fields default to null.
    expect(
      partnerFromRecord(partnerType.fromBuffer(partnerType.toBuffer(partnerToRecord(partner))) as Record<string, unknown>)
        .callback_endpoints[0],
    ).toMatchObject({ name: null, description: null });
    expect(
      problemsOf(() => editOwnEndpoint(next, endpoint.endpoint_id, { name: 'n'.repeat(81), description: 'd'.repeat(301) }, deps)),
    ).toEqual([
      { field: 'name', message: 'must be at most 80 characters' },
      { field: 'description', message: 'must be at most 300 characters' },
    ]);
    expect(editOwnEndpoint(next, endpoint.endpoint_id, { name: '', description: null }, deps).endpoint).toMatchObject({
      name: null,
      description: null,
    });
  });

  test('when an endpoint is added, then it gets a fresh id, the onboarding defaults, and the record fits the Avro schema', () => {
    const { partner: next, endpoint } = addOwnEndpoint(partner, { url: 'https://partner.example/two', statuses: ['POLICY_ACTIVE'] }, deps);
    expect(endpoint).toMatchObject({
      url: 'https://partner.example/two',
      timeout_ms: 10_000,
      statuses: ['POLICY_ACTIVE'],
      disabled: false,
    });
    expect(endpoint.endpoint_id).toMatch(/^ep-[0-9a-f]{8}$/);
    expect(next.revision).toBe(partner.revision + 1);
    const decoded = partnerFromRecord(partnerType.fromBuffer(partnerType.toBuffer(partnerToRecord(next))) as Record<string, unknown>);
    expect(decoded.callback_endpoints[1]).toEqual(endpoint);
    // The rotation state is no part of the spec an operator sees (and the update that re-validates it).
    const rotated = rotateSigningSecret(next, 3_600_000, { box: deps.box, now: Date.now() }).partner;
    expect(describePartner(rotated)['outbound_auth']).toEqual({ method: 'STANDARD_WEBHOOKS', secret: '********' });
    expect(updatePartner(rotated, { name: 'ACME 2' }, deps).outbound_auth).toBe(rotated.outbound_auth);
  });

  test('when the input breaks an onboarding rule, then each problem is named by the endpoint’s own field', () => {
    expect(problemsOf(() => addOwnEndpoint(partner, { url: 'ftp://partner.example/x', timeout_ms: 50, statuses: ['NOPE'] }, deps))).toEqual(
      [
        { field: 'url', message: 'must use http or https, not ftp' },
        { field: 'timeout_ms', message: 'must be at least 100 ms' },
        { field: 'statuses[0]', message: expect.stringMatching(/POLICY_ISSUING/) },
      ],
    );
    expect(problemsOf(() => editOwnEndpoint(partner, 'main', { url: `https://p.example/${'x'.repeat(2000)}` }, deps))).toEqual([
      { field: 'url', message: 'must be at most 2000 characters' },
    ]);
  });

  test('when an operator updates the endpoints without saying `disabled`, then one the partner disabled stays disabled', () => {
    const { partner: disabled } = editOwnEndpoint(partner, 'main', { disabled: true }, deps);
    const updated = updatePartner(
      disabled,
      {
        callback_endpoints: [
          { endpoint_id: 'main', url: 'https://partner.example/cb', timeout_ms: 4000 },
          { endpoint_id: 'two', url: 'https://partner.example/two' },
        ],
      },
      deps,
    );
    expect(updated.callback_endpoints.map((e) => [e.endpoint_id, e.timeout_ms, e.disabled])).toEqual([
      ['main', 4000, true],
      ['two', 10_000, false],
    ]);
    // Said explicitly, it is what the operator says.
    const enabled = updatePartner(
      disabled,
      { callback_endpoints: [{ endpoint_id: 'main', url: 'https://partner.example/cb', disabled: false }] },
      deps,
    );
    expect(enabled.callback_endpoints[0]!.disabled).toBe(false);
  });

  test('when a partner has 10 endpoints, then an 11th is refused', () => {
    let next = partner;
    for (let i = 0; i < 9; i++) next = addOwnEndpoint(next, { url: `https://partner.example/${i}` }, deps).partner;
    expect(problemsOf(() => addOwnEndpoint(next, { url: 'https://partner.example/11' }, deps))).toMatch(/at most 10 callback endpoints/);
  });

  test('when an endpoint is disabled, then it wants no event; an unknown id is not found; the last endpoint cannot be deleted', () => {
    const { partner: next, endpoint, changed } = editOwnEndpoint(partner, 'main', { disabled: true }, deps);
    expect(changed).toEqual(['disabled']);
    expect(endpointWants(endpoint, 'POLICY_ACTIVE', null)).toBe(false);
    expect(endpointWants({ ...endpoint, disabled: false }, 'POLICY_ACTIVE', null)).toBe(true);
    expect(problemsOf(() => editOwnEndpoint(next, 'other', { disabled: false }, deps))).toBe('no endpoint "other"');
    expect(problemsOf(() => deleteOwnEndpoint(next, 'main', deps))).toMatch(/last callback endpoint: disable it instead/);
    const two = addOwnEndpoint(next, { url: 'https://partner.example/two' }, deps).partner;
    expect(deleteOwnEndpoint(two, 'main', deps).partner.callback_endpoints.map((e) => e.url)).toEqual(['https://partner.example/two']);
  });
});
