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
    if (refusal === 'unresolved') return `its host "${new URL(url).hostname}" does not resolve (no DNS address): check the name`;
    if (!refusal) return undefined;
    const { host, address, range } = refusal.details as { host: string; address: string; range: string };
    const where = address === host ? `${host} is` : `${host} resolves to ${address}, which is`;
    return `refused by the SSRF guard: ${where} a ${range} address, which callbacks may not reach`;
  };
}
