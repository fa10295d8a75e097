/*
 * A partner manages its own callback endpoints (the partner API): lists them with their health,
 * adds, edits (name, description, URL, timeout, statuses, disabled) and deletes them. Each change is validated as an
 * operator's onboarding is (@hookstream/partners: addOwnEndpoint…), its URL judged by the SSRF guard
 * first (a URL resolving to a private, loopback or metadata address is refused unless the
 * deployment's SSRF_ALLOW allows it: the sender would refuse to connect anyway, and the partner
 * should hear it now, beside the field), and goes through self-service.ts: API key only, limited,
 * audited, refused while an operator turned self-service off.
 */
import { isIP } from 'node:net';
import {
  addOwnEndpoint,
  deleteOwnEndpoint,
  editOwnEndpoint,
  PartnerSpecError,
  type CallbackEndpoint,
  type OwnEndpointInput,
  type Partner,
  type PartnerChanges,
} from '@hookstream/partners';
import type { PartnerHealth } from '../adapters/store/queries/endpoint-health';
import { partnerActor, withinLimit, type SelfServiceLimit, type SelfServicePlaces } from './self-service';
import type { EndpointHealthStore } from './endpoint-health';

/** What the SSRF guard says of a URL before anything connects to it: why it is refused, or undefined. */
export type CallbackUrlGuard = (url: string) => Promise<string | undefined>;

export interface OwnEndpointsDeps {
  changes: PartnerChanges;
  places: SelfServicePlaces;
  limit: SelfServiceLimit;
  urlGuard: CallbackUrlGuard;
}

/** The partner's endpoints as configured now, each with its health; endpoints since removed keep their health (configuration null). */
export async function ownEndpoints(store: EndpointHealthStore, partner: Partner) {
  const health: PartnerHealth = await store.endpointHealth(partner.partner_id);
  const healthOf = new Map(health.endpoints.map((e) => [e.endpoint_id, e]));
  const empty = { sends: 0, delivered: 0, success_rate: null, p95_latency_ms: null };
  const configured = partner.callback_endpoints.map((e) => ({
    ...(healthOf.get(e.endpoint_id) ?? { last_hour: empty, last_day: empty, hourly: [] }),
    ...configurationOf(e),
  }));
  const removed = health.endpoints
    .filter((h) => !partner.callback_endpoints.some((e) => e.endpoint_id === h.endpoint_id))
    .map((h) => ({ ...h, name: null, description: null, url: null, configuration: null }));
  return { ...health, self_service: partner.self_service !== false, endpoints: [...configured, ...removed] };
}

function configurationOf(e: CallbackEndpoint) {
  const { endpoint_id, url, timeout_ms, statuses, product_codes, ordering } = e;
  return {
    endpoint_id,
    name: e.name ?? null,
    description: e.description ?? null,
    url,
    configuration: { timeout_ms, statuses, product_codes, ordering, disabled: e.disabled === true },
  };
}

export async function addEndpoint(deps: OwnEndpointsDeps, partnerId: string, input: OwnEndpointInput & { url: string }, reason: string) {
  const { answer } = await withinLimit(deps.places, partnerId, deps.limit, async (spend) => {
    // Judged within the hour's places: a refused host name costs one (a refused address typed in does not: it looked nothing up).
    const unsafe = await ssrfProblem(deps.urlGuard, input.url);
    if (unsafe && namesAHost(input.url)) spend();
    return deps.changes.selfService(partnerId, partnerActor(partnerId), reason, (current, adminDeps) => {
      const change = judged(unsafe, () => addOwnEndpoint(current, input, adminDeps));
      return {
        next: change.partner,
        action: 'partner.endpoint-add',
        detail: auditDetail(change.endpoint, change.changed),
        answer: change.endpoint,
      };
    });
  });
  return configurationOf(answer);
}

export async function editEndpoint(deps: OwnEndpointsDeps, partnerId: string, endpointId: string, input: OwnEndpointInput, reason: string) {
  const { answer } = await withinLimit(deps.places, partnerId, deps.limit, async (spend) => {
    const unsafe = input.url === undefined ? undefined : await ssrfProblem(deps.urlGuard, input.url);
    if (unsafe && namesAHost(input.url!)) spend();
    return deps.changes.selfService(partnerId, partnerActor(partnerId), reason, (current, adminDeps) => {
      const change = judged(unsafe, () => editOwnEndpoint(current, endpointId, input, adminDeps));
      return {
        next: change.partner,
        action: 'partner.endpoint-edit',
        detail: auditDetail(change.endpoint, change.changed),
        answer: change.endpoint,
      };
    });
  });
  return configurationOf(answer);
}

export async function deleteEndpoint(deps: OwnEndpointsDeps, partnerId: string, endpointId: string, reason: string): Promise<void> {
  await withinLimit(deps.places, partnerId, deps.limit, () =>
    deps.changes.selfService(partnerId, partnerActor(partnerId), reason, (current, adminDeps) => {
      const change = deleteOwnEndpoint(current, endpointId, adminDeps);
      return { next: change.partner, action: 'partner.endpoint-delete', detail: auditDetail(change.endpoint, []), answer: undefined };
    }),
  );
}

/**
 * What the audit keeps of a change: the fields set and their values, the URL as its origin and
 * path only (a query string may carry a token of the partner's).
 */
function auditDetail(endpoint: CallbackEndpoint, changed: string[]): Record<string, unknown> {
  const url = new URL(endpoint.url);
  return {
    endpoint_id: endpoint.endpoint_id,
    name: endpoint.name ?? null,
    changed,
    url: `${url.origin}${url.pathname}`,
    timeout_ms: endpoint.timeout_ms,
    statuses: endpoint.statuses,
    disabled: endpoint.disabled === true,
  };
}

/** Why the SSRF guard refuses `url`, or undefined (also for no URL at all: the onboarding rules name that). */
/** Whether the URL's host is a name (looked up in DNS to be judged), not an address. */
function namesAHost(url: string): boolean {
  return isIP(new URL(url.trim()).hostname.replace(/^\[(.*)\]$/, '$1')) === 0;
}

async function ssrfProblem(guard: CallbackUrlGuard, url: string): Promise<string | undefined> {
  const text = url.trim();
  if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol)) return undefined;
  return guard(text);
}

/**
 * The change, refused with every problem at once: the onboarding rules' and the SSRF guard's
 * (unless the rules already refuse the URL itself).
 */
function judged<T>(unsafe: string | undefined, change: () => T): T {
  const ssrf = unsafe ? [{ field: 'url', message: unsafe }] : [];
  let result: T;
  try {
    result = change();
  } catch (error) {
    if (!(error instanceof PartnerSpecError) || ssrf.length === 0 || error.problems.some((p) => p.field === 'url')) throw error;
    throw new PartnerSpecError([...ssrf, ...error.problems]);
  }
  if (ssrf.length > 0) throw new PartnerSpecError(ssrf);
  return result;
}
