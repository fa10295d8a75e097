import type { LookupAddress } from 'node:dns';
import { ssrfRefusalOf } from '../../src/http/ssrf-guard';

/** A resolver answering from a table, as DNS would. */
const dnsOf =
  (table: Record<string, string[]>) =>
  (host: string, _options: unknown, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => {
    const found = table[host];
    if (!found) return callback(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }), []);
    callback(
      null,
      found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };

describe('a URL judged by the SSRF guard before anything connects', () => {
  const lookup = dnsOf({ 'partner.example': ['93.184.216.34'], 'rebind.example': ['93.184.216.34', '10.1.2.3'] });

  test('a public host passes; a private literal, a name with one private address, and cloud metadata are refused naming the range', async () => {
    expect(await ssrfRefusalOf('https://partner.example/cb', { allow: [] }, lookup)).toBeUndefined();
    expect(await ssrfRefusalOf('http://10.0.0.5/cb', { allow: [] }, lookup)).toMatchObject({ details: { range: 'private' } });
    expect(await ssrfRefusalOf('http://rebind.example/cb', { allow: [] }, lookup)).toMatchObject({
      details: { host: 'rebind.example', address: '10.1.2.3', range: 'private' },
    });
    expect(await ssrfRefusalOf('http://169.254.169.254/latest', { allow: [] }, lookup)).toMatchObject({
      details: { range: 'cloud-metadata' },
    });
    expect(await ssrfRefusalOf('http://[::1]:8080/cb', { allow: [] }, lookup)).toMatchObject({ details: { range: 'loopback' } });
  });

  test('the allow list lets a refused range through; a host without an address is unresolved', async () => {
    expect(await ssrfRefusalOf('http://127.0.0.1:9/cb', { allow: ['127.0.0.0/8'] }, lookup)).toBeUndefined();
    expect(await ssrfRefusalOf('https://nowhere.example/cb', { allow: [] }, lookup)).toBe('unresolved');
  });

  test("a name server that never answers counts as not resolving after 5 s, not the resolver's own timeout", async () => {
    jest.useFakeTimers();
    try {
      const silent = () => undefined; // never calls back
      const judged = ssrfRefusalOf('https://slow.example/cb', { allow: [] }, silent);
      await jest.advanceTimersByTimeAsync(4999);
      let settled = false;
      void judged.then(() => (settled = true));
      await Promise.resolve();
      expect(settled).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      expect(await judged).toBe('unresolved');
    } finally {
      jest.useRealTimers();
    }
  });
});
