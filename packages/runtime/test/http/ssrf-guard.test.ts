import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer, createSecureContext, type Server as TlsServer } from 'node:tls';
import { request, type Agent } from 'undici';
import {
  SsrfRefusedError,
  createSsrfGuardedAgent,
  isSsrfRefused,
  parseSsrfAllowList,
  refusedRange,
  type ResolveAllAddresses,
  type SsrfPolicy,
} from '../../src/http/ssrf-guard';

const NO_ALLOW: SsrfPolicy = { allow: [] };
const ALLOW_LOOPBACK: SsrfPolicy = { allow: ['127.0.0.0/8'] };

/** A real HTTP server on 127.0.0.1:0 counting the TCP connections it accepts. */
const local = { server: undefined as Server | undefined, port: 0, connections: 0 };
const agents: Agent[] = [];

beforeAll(async () => {
  local.server = createServer((_req, res) => res.end('ok'));
  local.server.on('connection', () => (local.connections += 1));
  await new Promise<void>((resolve) => local.server!.listen(0, '127.0.0.1', resolve));
  local.port = (local.server.address() as AddressInfo).port;
});
afterAll(async () => {
  local.server?.closeAllConnections();
  await new Promise((resolve) => local.server?.close(resolve));
});
beforeEach(() => {
  local.connections = 0;
});
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.destroy()));
});

function guardedAgent(policy: SsrfPolicy, lookup?: ResolveAllAddresses): Agent {
  const agent = createSsrfGuardedAgent({ policy, connectTimeoutMs: 2_000, connections: 4, lookup });
  agents.push(agent);
  return agent;
}

/** A lookup answering from a list, one answer per call (the last one repeats), recording each call. */
function scriptedLookup(...answers: string[][]): ResolveAllAddresses & { calls: string[] } {
  const calls: string[] = [];
  const lookup = (hostname: string, _options: unknown, callback: (error: null, addresses: LookupAddress[]) => void) => {
    const answer = answers[Math.min(calls.length, answers.length - 1)] ?? [];
    calls.push(hostname);
    setImmediate(() =>
      callback(
        null,
        answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      ),
    );
  };
  return Object.assign(lookup, { calls });
}

async function get(url: string, agent: Agent): Promise<{ status: number; body: string }> {
  const response = await request(url, { dispatcher: agent });
  return { status: response.statusCode, body: await response.body.text() };
}

async function refusal(promise: Promise<unknown>): Promise<SsrfRefusedError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isSsrfRefused(error)).toBe(true);
  return error as SsrfRefusedError;
}

describe('refusedRange', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.5', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'cloud-metadata'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.10', 'documentation'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.1', 'benchmarking'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:a9fe:a9fe', 'cloud-metadata'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::a00:1', 'private'],
    ['fc00::1', 'ipv6-unique-local'],
    ['fd12:3456::1', 'ipv6-unique-local'],
    ['fd00:ec2::254', 'cloud-metadata'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['100::1', 'discard'],
    ['::127.0.0.1', 'reserved'],
    ['2002:7f00:1::1', 'ipv6-transition'],
    ['2001::1', 'reserved'],
    ['not-an-ip', 'invalid-address'],
  ])('when the address is %s, then it is refused as %s', (address, range) => {
    expect(refusedRange(address, NO_ALLOW)).toBe(range);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    'when the address %s is public, then it is allowed',
    (address) => {
      expect(refusedRange(address, NO_ALLOW)).toBeUndefined();
    },
  );

  it('when the allow list covers a refused address, then it is allowed, in every form', () => {
    const policy: SsrfPolicy = { allow: ['127.0.0.0/8', '::1/128'] };
    for (const address of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1']) {
      expect(refusedRange(address, policy)).toBeUndefined();
    }
    expect(refusedRange('10.0.0.1', policy)).toBe('private');
  });
});

describe('parseSsrfAllowList', () => {
  it('when given CIDRs and bare addresses, then it returns them trimmed', () => {
    expect(parseSsrfAllowList(' 127.0.0.0/8, ::1/128 ,10.1.2.3,, ')).toEqual(['127.0.0.0/8', '::1/128', '10.1.2.3']);
    expect(parseSsrfAllowList('')).toEqual([]);
  });

  it.each(['10.0.0.0/33', 'not-an-ip', '::1/129', '10.0.0.0/8/1', '10.0.0.0/x'])(
    'when an entry is %s, then it throws naming it',
    (entry) => {
      expect(() => parseSsrfAllowList(`127.0.0.0/8,${entry}`)).toThrow(`"${entry}"`);
    },
  );
});

describe('createSsrfGuardedAgent', () => {
  it('when the URL is a loopback IP and nothing is allowed, then the request fails with SSRF_REFUSED and never connects', async () => {
    const error = await refusal(get(`http://127.0.0.1:${local.port}/`, guardedAgent(NO_ALLOW)));

    expect(error).toBeInstanceOf(SsrfRefusedError);
    expect(error).toMatchObject({
      code: 'HOOKSTREAM_SSRF_REFUSED',
      retryable: false,
      range: 'loopback',
      address: '127.0.0.1',
      host: '127.0.0.1',
    });
    expect(local.connections).toBe(0);
  });

  it('when the URL is a loopback IP and 127.0.0.0/8 is allowed, then the request reaches the server', async () => {
    await expect(get(`http://127.0.0.1:${local.port}/`, guardedAgent(ALLOW_LOOPBACK))).resolves.toEqual({ status: 200, body: 'ok' });
  });

  it('when the URL is an IPv6 literal in a refused range, then it is refused', async () => {
    const error = await refusal(get('http://[::ffff:169.254.169.254]/latest/meta-data', guardedAgent(NO_ALLOW)));
    expect(error).toMatchObject({ range: 'cloud-metadata' });
  });

  it('when the host is localhost (the system resolver), then it is refused', async () => {
    const error = await refusal(get(`http://localhost:${local.port}/`, guardedAgent(NO_ALLOW)));
    expect(error).toMatchObject({ range: 'loopback', host: 'localhost' });
  });

  it('when a host name resolves to a private address, then it is refused before any connection', async () => {
    const lookup = scriptedLookup(['10.0.0.5']);

    const error = await refusal(get('http://partner.example/hook', guardedAgent(NO_ALLOW, lookup)));

    expect(error).toBeInstanceOf(SsrfRefusedError); // undici passes the connect error through, unwrapped
    expect(error).toMatchObject({ host: 'partner.example', address: '10.0.0.5', range: 'private' });
    expect(lookup.calls).toEqual(['partner.example']);
  });

  it('when any address of a host name is refused, then the connection is refused even though another is allowed', async () => {
    const lookup = scriptedLookup(['127.0.0.1', '10.0.0.5']);

    const error = await refusal(get(`http://partner.example:${local.port}/`, guardedAgent(ALLOW_LOOPBACK, lookup)));

    expect(error).toMatchObject({ address: '10.0.0.5', range: 'private' });
    expect(local.connections).toBe(0);
  });

  it('when DNS answers differently after the check (rebinding), then the connection goes to the checked address', async () => {
    // First answer: allowed and served locally; every later answer: private. A second resolution
    // (by net.connect or anything else) would be refused or fail to reach the server.
    const lookup = scriptedLookup(['127.0.0.1'], ['10.0.0.1']);
    const agent = guardedAgent(ALLOW_LOOPBACK, lookup);

    await expect(get(`http://rebind.example:${local.port}/`, agent)).resolves.toEqual({ status: 200, body: 'ok' });

    expect(lookup.calls).toEqual(['rebind.example']); // one connection, one resolution
    expect(local.connections).toBe(1);
  });

  it('when a host name has several allowed addresses and the first refuses connections, then the next is tried', async () => {
    // Nothing listens on 127.0.0.2; the server is on 127.0.0.1.
    const lookup = scriptedLookup(['127.0.0.2', '127.0.0.1']);

    await expect(get(`http://partner.example:${local.port}/`, guardedAgent(ALLOW_LOOPBACK, lookup))).resolves.toEqual({
      status: 200,
      body: 'ok',
    });
    expect(lookup.calls).toEqual(['partner.example']);
  });

  it('when a new connection is made after DNS changed, then the new answer is checked again', async () => {
    const lookup = scriptedLookup(['127.0.0.1'], ['10.0.0.1']);
    const agent = guardedAgent(ALLOW_LOOPBACK, lookup);
    await get(`http://rebind.example:${local.port}/`, agent);
    local.server!.closeAllConnections();

    const error = await refusal(get(`http://rebind.example:${local.port}/`, agent));

    expect(error).toMatchObject({ address: '10.0.0.1', range: 'private' });
    expect(lookup.calls).toEqual(['rebind.example', 'rebind.example']);
  });

  it('when DNS fails, then the DNS error comes through unchanged', async () => {
    const lookup: ResolveAllAddresses = (_hostname, _options, callback) =>
      callback(Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.example'), { code: 'ENOTFOUND' }), []);

    await expect(get('http://nowhere.example/', guardedAgent(NO_ALLOW, lookup))).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  describe('over TLS', () => {
    const tls = { server: undefined as TlsServer | undefined, port: 0, servernames: [] as string[] };
    beforeAll(async () => {
      const context = createSecureContext({ key: PARTNER_EXAMPLE_KEY, cert: PARTNER_EXAMPLE_CERT });
      tls.server = createTlsServer({
        SNICallback: (servername, callback) => {
          tls.servernames.push(servername);
          callback(null, context);
        },
      });
      tls.server.on('tlsClientError', () => undefined);
      await new Promise<void>((resolve) => tls.server!.listen(0, '127.0.0.1', resolve));
      tls.port = (tls.server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      await new Promise((resolve) => tls.server?.close(resolve));
    });

    it('when a host name is checked, then TLS is made to the checked address with the host name as SNI and verified against it', async () => {
      const lookup = scriptedLookup(['127.0.0.1'], ['10.0.0.1']);

      const error = await get(`https://partner.example:${tls.port}/`, guardedAgent(ALLOW_LOOPBACK, lookup)).catch((e: unknown) => e);

      expect(tls.servernames).toEqual(['partner.example']);
      // The test certificate is self-signed: the handshake reached the checked address and the certificate was verified.
      expect(error).toMatchObject({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
      expect(lookup.calls).toEqual(['partner.example']);
    });
  });
});

// A self-signed P-256 certificate for partner.example, valid until 2126; test fixture only.
const PARTNER_EXAMPLE_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgos+CJYDCs9+Z+HLW
frvA2A3JwbAuerDoVTTUxjsb766hRANCAAQuzyd8q1UAVFL6uum0p0gJrRFKoVtq
STh01D7MTamOdBk7o0eT1DJfnx9Krgga+TbxaJD0ZCUH3nr5bT+sE0J+
-----END PRIVATE KEY-----
`;
const PARTNER_EXAMPLE_CERT = `-----BEGIN CERTIFICATE-----
MIIBpzCCAU2gAwIBAgIUPI8w2AUNOZLVonrEvjUafGZWl7AwCgYIKoZIzj0EAwIw
GjEYMBYGA1UEAwwPcGFydG5lci5leGFtcGxlMCAXDTI2MTEyMTE0NDEyMFoYDzIx
MjYxMDI4MTQ0MTIwWjAaMRgwFgYDVQQDDA9wYXJ0bmVyLmV4YW1wbGUwWTATBgcq
hkjOPQIBBggqhkjOPQMBBwNCAAQuzyd8q1UAVFL6uum0p0gJrRFKoVtqSTh01D7M
TamOdBk7o0eT1DJfnx9Krgga+TbxaJD0ZCUH3nr5bT+sE0J+o28wbTAdBgNVHQ4E
FgQUMN8xE/iuGq/GrPkkofpP9AfYjpMwHwYDVR0jBBgwFoAUMN8xE/iuGq/GrPkk
ofpP9AfYjpMwDwYDVR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgg9wYXJ0bmVyLmV4
YW1wbGUwCgYIKoZIzj0EAwIDSAAwRQIhAO0MNpOY+7Axk6hSrPN+n9IdtCwiahAc
A+XSMkc3cxFZAiArcrBBJRE/uWMrEpoUAioZYraMlQN+oeYOC/NCDMQrKw==
-----END CERTIFICATE-----
`;
