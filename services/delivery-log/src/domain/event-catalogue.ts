/*
 * The event catalogue (what Svix calls event types): each policy status the insurer calls a partner
 * back about, what it means, which of the partner's endpoints receive it, and an example callback as
 * this partner gets it — its body mapping applied to the contract's sample policy (the one test
 * events are built from), the headers it carries by name, a credential's value never shown, and the
 * steps that verify it. Read from the partner as this replica holds it: nothing is sent or written.
 */
import {
  buildCallbackBody,
  CallbackBodyError,
  DeliveryHeaders,
  StandardWebhooksHeaders,
  type PolicyStatusEventValue,
} from '@hookstream/contract';
import { POLICY_STATUSES, publicOutboundAuth, type Partner, type PublicOutboundAuth } from '@hookstream/partners';
import { verificationOf, type Verification } from './signature-explanation';

type SamplePolicy = PolicyStatusEventValue['policy'];
type PolicyStatus = (typeof POLICY_STATUSES)[number];

/** What each status means to a partner, in the contract's words. */
const MEANINGS: Record<PolicyStatus, string> = {
  POLICY_ISSUING: 'The policy is being issued: the insurer accepted it, and it is not in force yet.',
  POLICY_ACTIVE: 'The policy is in force.',
  POLICY_CANCELLED: 'The policy was cancelled: it is no longer in force.',
};

/** The policy number the examples carry: no real policy has it. */
export const EXAMPLE_POLICY_NUMBER = 'EXAMPLE-0001';

export interface EventType {
  status: PolicyStatus;
  description: string;
  /** The partner's endpoints that receive it (enabled, their statuses filter letting it through), with the products they are limited to. */
  endpoints: Array<{ endpoint_id: string; name: string | null; product_codes: string[] }>;
  /** The body of its callback as this partner gets it; null when its body mapping cannot build one (problem says why). */
  example_body: string | null;
  problem: string | null;
}

export interface EventCatalogue {
  partner_id: string;
  event_types: EventType[];
  /** Every header a callback carries, by name, with what its value is; a credential's value is "[redacted]". */
  headers: Array<{ name: string; value: string }>;
  /** How to verify a callback; null for a partner whose callbacks carry no authentication. */
  verification: Verification | null;
}

export function eventCatalogue(partner: Partner, samplePolicy: SamplePolicy): EventCatalogue {
  const eventTypes = POLICY_STATUSES.map((status): EventType => {
    let example: { example_body: string | null; problem: string | null };
    try {
      const body = buildCallbackBody({ ...samplePolicy, policy_number: EXAMPLE_POLICY_NUMBER, status }, partner.body_mapping);
      example = { example_body: body, problem: null };
    } catch (error) {
      if (!(error instanceof CallbackBodyError)) throw error;
      example = { example_body: null, problem: `your body mapping cannot build this callback: ${error.message}` };
    }
    const endpoints = partner.callback_endpoints
      .filter((e) => e.disabled !== true && (e.statuses.length === 0 || e.statuses.includes(status)))
      .map((e) => ({ endpoint_id: e.endpoint_id, name: e.name ?? null, product_codes: e.product_codes }));
    return { status, description: MEANINGS[status], endpoints, ...example };
  });
  const auth = partner.outbound_auth ? publicOutboundAuth(partner.outbound_auth) : null;
  const exampleBody = eventTypes.find((t) => t.example_body !== null)?.example_body ?? null;
  return {
    partner_id: partner.partner_id,
    event_types: eventTypes,
    headers: [...DELIVERY_HEADERS, ...(auth ? authHeaders(auth) : [])],
    verification: auth ? verificationOf(auth, null, exampleBody) : null,
  };
}

/** The headers every callback carries whatever its method (the sender sets them: docs/partners.md). */
const DELIVERY_HEADERS: EventCatalogue['headers'] = [
  { name: 'content-type', value: 'application/json' },
  { name: DeliveryHeaders.deliveryId, value: 'the delivery’s id: the same on every retry of it (deduplicate on it)' },
  { name: DeliveryHeaders.eventId, value: 'the status change the callback reports' },
  { name: DeliveryHeaders.attempt, value: '1 for the first send, 2 for the first retry, and so on' },
];

const REDACTED = '[redacted]';

/** The headers the partner's method adds, by name; a credential's value never shown. */
function authHeaders(auth: PublicOutboundAuth): EventCatalogue['headers'] {
  switch (auth.method) {
    case 'API_KEY':
      return [{ name: auth.header_name, value: REDACTED }];
    case 'HMAC_SHA256':
      return [
        { name: auth.key_header, value: REDACTED },
        { name: auth.timestamp_header, value: 'when this send was signed (UTC, ISO 8601)' },
        { name: auth.signature_header, value: 'Base64 HMAC-SHA256 of this send (see verification)' },
      ];
    case 'MD5':
      return auth.placement === 'HEADER'
        ? [{ name: auth.target, value: 'MD5 of this send, 32 lowercase hex digits (see verification)' }]
        : [];
    case 'BEARER_JWT':
      return [{ name: 'authorization', value: 'Bearer, then a JWT made for this send (see verification)' }];
    case 'BEARER_STATIC':
    case 'BEARER_FETCHED':
    case 'BASIC':
      return [{ name: 'authorization', value: REDACTED }];
    case 'STANDARD_WEBHOOKS':
      return [
        { name: StandardWebhooksHeaders.id, value: 'the delivery’s id (as x-hookstream-delivery-id)' },
        { name: StandardWebhooksHeaders.timestamp, value: 'when this send was signed (unix seconds)' },
        { name: StandardWebhooksHeaders.signature, value: 'v1, then the Base64 signature of this send (see verification)' },
      ];
  }
}
