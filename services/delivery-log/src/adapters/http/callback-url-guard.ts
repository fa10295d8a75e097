/*
 * The SSRF guard's judgement of a callback URL a partner sets itself, before anything connects to
 * it: the same ranges and the same allow list (SSRF_ALLOW) the sender connects under.
 */
import { ssrfRefusalOf } from '@hookstream/runtime';
import type { CallbackUrlGuard } from '../../domain/manage-own-endpoints';

export function callbackUrlGuard(allow: string[]): CallbackUrlGuard {
  const policy = { allow };
  return async (url) => {
    const refusal = await ssrfRefusalOf(url, policy);
    if (!refusal) return undefined;
    if (refusal !== 'unresolved') {
      const { host, address, range } = refusal.details as { host: string; address: string; range: string };
      // An address typed in the URL: naming its range tells the partner nothing it did not write.
      if (address === host) return `refused by the SSRF guard: ${host} is a ${range} address, which callbacks may not reach`;
    }
    // A name: one answer whether it does not resolve or resolves where callbacks may not go, and
    // never the address, so that the check cannot be used to read the deployment's own DNS.
    return `refused by the SSRF guard: its host does not resolve to an address callbacks may reach (check the name; private, loopback, link-local and reserved addresses are refused)`;
  };
}
