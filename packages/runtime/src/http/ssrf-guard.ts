import dns, { type LookupAddress, type LookupAllOptions, type LookupOptions } from 'node:dns';
import { BlockList, isIP, isIPv4, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { ErrorCodes, HookstreamError } from '@hookstream/errors';

/**
 * Callback, token and document URLs are partner-supplied, so every outbound connection is checked against
 * the address ranges a partner must not make us reach: our own host, the private network, cloud
 * metadata services. The check runs on the addresses a connection is actually made to, after DNS.
 */
export interface SsrfPolicy {
  /** CIDRs (v4/v6) allowed even though they are in a refused range, e.g. "127.0.0.0/8,::1/128" for the demo and tests. Default none. */
  allow: string[];
}

export type RefusedRangeName =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'cgnat'
  | 'link-local'
  | 'cloud-metadata'
  | 'documentation'
  | 'benchmarking'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'ipv6-unique-local'
  | 'ipv6-site-local'
  | 'ipv6-transition'
  | 'discard'
  | 'invalid-address';

/**
 * Refused ranges (RFC 6890 special-purpose registries), most specific first: the first match names
 * the range. IPv4-mapped (::ffff:0:0/96) and NAT64 (64:ff9b::/96) addresses are judged by the IPv4
 * address they carry, before this table is consulted.
 */
const REFUSED: ReadonlyArray<{ range: RefusedRangeName; cidrs: readonly string[] }> = [
  // AWS/GCP/Azure instance metadata, Azure's WireServer (a public address meaningful only inside Azure), AWS's IPv6 metadata.
  { range: 'cloud-metadata', cidrs: ['169.254.169.254/32', '168.63.129.16/32', 'fd00:ec2::254/128'] },
  { range: 'broadcast', cidrs: ['255.255.255.255/32'] },
  // Connecting to 0.0.0.0 or :: reaches the local host on Linux.
  { range: 'unspecified', cidrs: ['0.0.0.0/8', '::/128'] },
  { range: 'loopback', cidrs: ['127.0.0.0/8', '::1/128'] },
  { range: 'private', cidrs: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16'] },
  { range: 'cgnat', cidrs: ['100.64.0.0/10'] },
  { range: 'link-local', cidrs: ['169.254.0.0/16', 'fe80::/10'] },
  { range: 'documentation', cidrs: ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '2001:db8::/32'] },
  { range: 'benchmarking', cidrs: ['198.18.0.0/15', '2001:2::/48'] },
  { range: 'multicast', cidrs: ['224.0.0.0/4', 'ff00::/8'] },
  { range: 'ipv6-unique-local', cidrs: ['fc00::/7'] },
  { range: 'ipv6-site-local', cidrs: ['fec0::/10'] },
  { range: 'discard', cidrs: ['100::/64'] },
  // 6to4 (deprecated, RFC 7526) and local-use NAT64: the IPv4 address behind them is not ours to judge.
  { range: 'ipv6-transition', cidrs: ['192.88.99.0/24', '2002::/16', '64:ff9b:1::/48'] },
  // IETF protocol assignments (incl. Teredo), future use, IPv4-compatible IPv6 (deprecated).
  { range: 'reserved', cidrs: ['192.0.0.0/24', '240.0.0.0/4', '2001::/23', '::/96'] },
];

const REFUSED_LISTS = REFUSED.map(({ range, cidrs }) => ({ range, list: blockListOf(cidrs) }));
/** Only 2000::/3 is global unicast; anything else in IPv6 not named above is refused as reserved. */
const IPV6_GLOBAL_UNICAST = blockListOf(['2000::/3']);
const IPV4_MAPPED = blockListOf(['::ffff:0:0/96']);
const NAT64 = blockListOf(['64:ff9b::/96']);

/** Thrown (passed to undici's connect callback) when a connection would reach a refused address range; not retryable. */
export class SsrfRefusedError extends HookstreamError {
  constructor(
    /** The host of the URL (a name or an IP literal). */
    readonly host: string,
    /** The refused address the host is or resolved to. */
    readonly address: string,
    readonly range: RefusedRangeName,
  ) {
    super(
      ErrorCodes.SSRF_REFUSED,
      `Refused to connect to ${host}: ${address === host ? 'it' : `it resolves to ${address}, which`} is in a refused range (${range})`,
      { details: { host, address, range } },
    );
  }
}

/** True when `error`, or an error in its cause chain (or an AggregateError's list), is an SsrfRefusedError; by code, not instanceof. */
export function isSsrfRefused(error: unknown): boolean {
  const seen = new Set<unknown>();
  const refused = (candidate: unknown): boolean => {
    if (typeof candidate !== 'object' || candidate === null || seen.has(candidate)) return false;
    seen.add(candidate);
    const e = candidate as { code?: unknown; cause?: unknown; errors?: unknown };
    return e.code === ErrorCodes.SSRF_REFUSED || (Array.isArray(e.errors) && e.errors.some(refused)) || refused(e.cause);
  };
  return refused(error);
}

/** Parses a comma-separated allow list of CIDRs (a bare address means just that address). Throws naming the first bad entry. */
export function parseSsrfAllowList(value: string): string[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) blockListOf([entry]);
  return entries;
}

/** The refused range `address` (an IP) is in, or undefined when a connection to it is allowed. A non-IP is refused. */
export function refusedRange(address: string, policy: SsrfPolicy): RefusedRangeName | undefined {
  return refusedRangeIn(address, allowListOf(policy));
}

export interface SsrfGuardedAgentOptions {
  /** Which refused addresses are allowed all the same. */
  policy: SsrfPolicy;
  /** Longest wait for a TCP/TLS connection, in ms. */
  connectTimeoutMs: number;
  /** Keep-alive connections per origin. */
  connections: number;
  /** How long an idle keep-alive connection is kept, in ms. Default 30000. */
  keepAliveTimeoutMs?: number;
  /** Resolves host names, all addresses at once (tests inject answers). Default: dns.lookup. */
  lookup?: ResolveAllAddresses;
}

/** The one form of dns.lookup the guard uses; dns.lookup itself fits. */
export type ResolveAllAddresses = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * An undici Agent (one keep-alive pool per origin, as CallbackHttpClient's default) whose every new
 * connection is checked. An IP-literal host is checked before connecting. A host name is resolved
 * once per connection, inside net.connect/tls.connect through their `lookup` option: every address
 * is checked and the socket connects only to the addresses that lookup returned, so a DNS answer
 * that changes between check and connect (rebinding) cannot slip past, while the socket keeps the
 * host name for TLS SNI and certificate checks and keeps trying each address (happy eyeballs).
 * If ANY address of a name is refused, the connection is refused: a name mixing public and private
 * addresses is a rebinding trick more often than a legitimate setup. A refusal fails the request
 * with SsrfRefusedError itself (undici passes the connect error through unwrapped).
 */
export function createSsrfGuardedAgent(options: SsrfGuardedAgentOptions): Agent {
  const allowList = blockListOf(options.policy.allow);
  const connect = buildConnector({
    timeout: options.connectTimeoutMs,
    lookup: guardedLookup(allowList, options.lookup ?? dns.lookup),
  });
  return new Agent({
    connections: options.connections,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
    pipelining: 1,
    connect: (connectOptions, callback) => {
      // undici strips the brackets of an IPv6 literal; net.connect does not look an IP literal up.
      const host = connectOptions.hostname;
      const range = isIP(host) === 0 ? undefined : refusedRangeIn(host, allowList);
      if (range !== undefined) return callback(new SsrfRefusedError(host, host, range), null);
      connect(connectOptions, callback);
    },
  });
}

/** A net `lookup` that resolves every address of the host, refuses them all if one is refused, and answers in the form asked. */
function guardedLookup(allowList: BlockList, resolve: ResolveAllAddresses): LookupFunction {
  return (hostname: string, lookupOptions: LookupOptions, callback) => {
    resolve(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      if (addresses.length === 0) return callback(Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      for (const { address } of addresses) {
        const range = refusedRangeIn(address, allowList);
        if (range !== undefined) return callback(new SsrfRefusedError(hostname, address, range), '');
      }
      if (lookupOptions.all === true) return callback(null, addresses);
      const [first] = addresses as [LookupAddress];
      callback(null, first.address, first.family);
    });
  };
}

function refusedRangeIn(address: string, allowList: BlockList): RefusedRangeName | undefined {
  const ip = address.replace(/%.*$/, ''); // an IPv6 zone id names an interface, not part of the address
  const family = isIP(ip);
  if (family === 0) return 'invalid-address';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const embedded = family === 6 ? embeddedIpv4(ip) : undefined;
  if (allowList.check(ip, type) || (embedded !== undefined && allowList.check(embedded, 'ipv4'))) return undefined;
  if (embedded !== undefined) return refusedRangeIn(embedded, allowList);
  const refused = REFUSED_LISTS.find(({ list }) => list.check(ip, type));
  if (refused) return refused.range;
  return family === 6 && !IPV6_GLOBAL_UNICAST.check(ip, 'ipv6') ? 'reserved' : undefined;
}

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d, ::ffff:7f00:1) or NAT64 (64:ff9b::a.b.c.d) IPv6 address. */
function embeddedIpv4(ipv6: string): string | undefined {
  if (!IPV4_MAPPED.check(ipv6, 'ipv6') && !NAT64.check(ipv6, 'ipv6')) return undefined;
  const groups = ipv6Groups(ipv6);
  const [high, low] = [groups[6] ?? 0, groups[7] ?? 0];
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** The eight 16-bit groups of a valid IPv6 address, `::` expanded and a dotted IPv4 tail converted. */
function ipv6Groups(ipv6: string): number[] {
  let text = ipv6;
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (isIPv4(tail)) {
    const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const before = parse(head);
  const after = parse(rest);
  return [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
}

const allowLists = new WeakMap<SsrfPolicy, BlockList>();
function allowListOf(policy: SsrfPolicy): BlockList {
  let list = allowLists.get(policy);
  if (!list) allowLists.set(policy, (list = blockListOf(policy.allow)));
  return list;
}

/** A BlockList of CIDRs ("10.0.0.0/8", "::1/128", or a bare address). Throws naming a bad entry. */
function blockListOf(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address = '', prefixText, extra] = cidr.split('/');
    const family = isIP(address);
    const maxPrefix = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? maxPrefix : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
    if (family === 0) throw new Error(`"${cidr}" is not a CIDR: "${address}" is not an IPv4 or IPv6 address`);
    if (extra !== undefined || !(prefix >= 0 && prefix <= maxPrefix)) {
      throw new Error(`"${cidr}" is not a CIDR: the prefix after "/" must be a whole number from 0 to ${maxPrefix}`);
    }
    list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

/**
 * What the guard would say of a partner-supplied URL before anything connects to it (a partner
 * setting its callback URL): the refusal of the first refused address its host is or resolves to,
 * "unresolved" when its host has no address, or undefined when every address is allowed. Judged
 * by the same ranges and allow list as each connection, which checks again at connect time (DNS may
 * change in between).
 */
/** Longest ssrfRefusalOf waits for a name's addresses. */
const LOOKUP_TIMEOUT_MS = 5000;

export async function ssrfRefusalOf(
  url: string,
  policy: SsrfPolicy,
  lookup: ResolveAllAddresses = dns.lookup,
): Promise<SsrfRefusedError | 'unresolved' | undefined> {
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  const allowList = allowListOf(policy);
  if (isIP(host) !== 0) {
    const range = refusedRangeIn(host, allowList);
    return range === undefined ? undefined : new SsrfRefusedError(host, host, range);
  }
  // A name server that never answers must not hold the caller's request for the resolver's own
  // timeout (tens of seconds): past LOOKUP_TIMEOUT_MS the name counts as not resolving.
  let timer: NodeJS.Timeout | undefined;
  const addresses = await Promise.race([
    new Promise<LookupAddress[]>((resolve) => lookup(host, { all: true }, (error, found) => resolve(error ? [] : found))),
    new Promise<LookupAddress[]>((resolve) => {
      timer = setTimeout(() => resolve([]), LOOKUP_TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
  if (addresses.length === 0) return 'unresolved';
  for (const { address } of addresses) {
    const range = refusedRangeIn(address, allowList);
    if (range !== undefined) return new SsrfRefusedError(host, address, range);
  }
  return undefined;
}
