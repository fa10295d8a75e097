import { NotFoundError } from '@hookstream/errors';
import { randomBytes } from 'node:crypto';
import { PartnerChangeRefused } from './key-limits';
import type { CallbackEndpoint, Partner } from './model';
import { updatePartner, type PartnerAdminDeps } from './partner-admin';
import { PartnerSpecError } from './partner-spec-error';
import { ENDPOINT_LIMITS } from './partner-spec-schema';

/**
 * A partner's own changes to its callback endpoints (the partner API): each one is the next
 * version of the partner's endpoint list, validated exactly as an operator's onboarding is
 * (updatePartner → parsePartnerSpec: URL form and length, timeout range, known statuses, the
 * count), with each problem named by the endpoint's own field (`url`, not
 * `callback_endpoints[2].url`). What only the network can say (the SSRF guard) is the caller's.
 */

/** What a partner may set on its own endpoint; the rest (product codes, ordering) is agreed with the insurer. */
export interface OwnEndpointInput {
  /** null clears it. */
  name?: string | null;
  description?: string | null;
  url?: string;
  timeout_ms?: number;
  statuses?: string[];
  disabled?: boolean;
}

export interface EndpointChange {
  partner: Partner;
  endpoint: CallbackEndpoint;
  /** The fields the change set, for the audit (never a value: a URL may carry a token in its query). */
  changed: string[];
}

/** A new endpoint with a fresh id (never one a removed endpoint had: delivery ids are made of it). */
export function addOwnEndpoint(current: Partner, input: OwnEndpointInput & { url: string }, deps: PartnerAdminDeps): EndpointChange {
  if (current.callback_endpoints.length >= ENDPOINT_LIMITS.perPartner) {
    throw new PartnerChangeRefused('conflict', `a partner has at most ${ENDPOINT_LIMITS.perPartner} callback endpoints: delete one first`);
  }
  const endpointId = freshEndpointId(current);
  const added = { endpoint_id: endpointId, ...input };
  return applied(current, [...current.callback_endpoints, added], endpointId, Object.keys(input), deps);
}

/** Sets the fields given of one of the partner's endpoints; another partner's id is not found, as an unknown one. */
export function editOwnEndpoint(current: Partner, endpointId: string, input: OwnEndpointInput, deps: PartnerAdminDeps): EndpointChange {
  const index = indexOf(current, endpointId);
  const endpoints = current.callback_endpoints.map((e, i) => (i === index ? { ...e, ...input } : e));
  return applied(current, endpoints, endpointId, Object.keys(input), deps);
}

/**
 * Deletes one of the partner's endpoints. The last one is kept (409): a partner without an endpoint
 * silently receives nothing, and disabling says the same thing reversibly.
 */
export function deleteOwnEndpoint(current: Partner, endpointId: string, deps: PartnerAdminDeps): EndpointChange {
  const index = indexOf(current, endpointId);
  if (current.callback_endpoints.length === 1) {
    throw new PartnerChangeRefused('conflict', 'this is the last callback endpoint: disable it instead, or add another first');
  }
  const endpoint = current.callback_endpoints[index]!;
  const next = current.callback_endpoints.filter((_e, i) => i !== index);
  const partner = updatePartner(current, { callback_endpoints: next }, deps);
  return { partner, endpoint, changed: ['deleted'] };
}

function indexOf(current: Partner, endpointId: string): number {
  const index = current.callback_endpoints.findIndex((e) => e.endpoint_id === endpointId);
  if (index < 0) throw new NotFoundError('endpoint', `no endpoint "${endpointId}"`);
  return index;
}

/** Validates the partner with `endpoints` as onboarding would, naming the problems of `endpointId` by its own fields. */
function applied(current: Partner, endpoints: unknown[], endpointId: string, changed: string[], deps: PartnerAdminDeps): EndpointChange {
  const index = endpoints.findIndex((e) => (e as CallbackEndpoint).endpoint_id === endpointId);
  let partner: Partner;
  try {
    partner = updatePartner(current, { callback_endpoints: endpoints }, deps);
  } catch (error) {
    if (!(error instanceof PartnerSpecError)) throw error;
    const own = `callback_endpoints[${index}].`;
    throw new PartnerSpecError(error.problems.map((p) => ({ ...p, field: p.field.startsWith(own) ? p.field.slice(own.length) : p.field })));
  }
  const endpoint = partner.callback_endpoints.find((e) => e.endpoint_id === endpointId)!;
  return { partner, endpoint, changed: changed.sort() };
}

function freshEndpointId(current: Partner): string {
  for (;;) {
    const id = `ep-${randomBytes(4).toString('hex')}`;
    if (!current.callback_endpoints.some((e) => e.endpoint_id === id)) return id;
  }
}
