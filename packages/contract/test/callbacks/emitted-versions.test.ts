import { EmittedPolicyVersions } from '../../src/callbacks/emitted-versions';

const headers = (partner: string, endpoint: string, version: string) => ({
  'hookstream-partner-id': partner,
  'hookstream-endpoint-id': endpoint,
  'hookstream-policy-version': Buffer.from(version),
});

describe('EmittedPolicyVersions', () => {
  test('when a newer version was emitted for the endpoint and policy, then the older one is superseded and the same one is not', () => {
    const versions = new EmittedPolicyVersions();
    versions.observeRecord('POL-1', headers('acme', 'ep-1', '3'));
    expect(versions.isSuperseded('acme', 'ep-1', 'POL-1', 2)).toBe(true);
    expect(versions.isSuperseded('acme', 'ep-1', 'POL-1', 3)).toBe(false);
    expect(versions.isSuperseded('acme', 'ep-1', 'POL-1', 4)).toBe(false);
    expect(versions.newest('acme', 'ep-1', 'POL-1')).toBe(3);
  });

  test('when versions come out of order, then the newest one stays', () => {
    const versions = new EmittedPolicyVersions();
    versions.observe('acme', 'ep-1', 'POL-1', 5);
    versions.observe('acme', 'ep-1', 'POL-1', 2);
    expect(versions.newest('acme', 'ep-1', 'POL-1')).toBe(5);
  });

  test('when another endpoint, partner or policy has a newer version, then it supersedes nothing here', () => {
    const versions = new EmittedPolicyVersions();
    versions.observe('acme', 'ep-2', 'POL-1', 9);
    versions.observe('other', 'ep-1', 'POL-1', 9);
    versions.observe('acme', 'ep-1', 'POL-2', 9);
    expect(versions.isSuperseded('acme', 'ep-1', 'POL-1', 1)).toBe(false);
  });

  test.each([
    ['without a key', undefined, headers('acme', 'ep-1', '2')],
    ['without the partner header', 'POL-1', { 'hookstream-endpoint-id': 'ep-1', 'hookstream-policy-version': '2' }],
    ['with a version that is not a number', 'POL-1', headers('acme', 'ep-1', 'two')],
  ])('when a record comes %s, then it is ignored', (_what, key, recordHeaders) => {
    const versions = new EmittedPolicyVersions();
    versions.observeRecord(key, recordHeaders);
    expect(versions.size).toBe(0);
  });

  test('when entries were last raised before the cutoff, then they are forgotten and later ones kept', () => {
    const versions = new EmittedPolicyVersions();
    versions.observe('acme', 'ep-1', 'POL-1', 1, 1_000);
    versions.observe('acme', 'ep-1', 'POL-2', 1, 5_000);
    versions.forgetSeenBefore(2_000);
    expect(versions.newest('acme', 'ep-1', 'POL-1')).toBeUndefined();
    expect(versions.newest('acme', 'ep-1', 'POL-2')).toBe(1);
  });
});
