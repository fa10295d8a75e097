import { describeError, hasErrorCode, type HookstreamError } from '@hookstream/errors';
import { OutboundFailures, isSsrfRefused, type OutboundFailure } from '@hookstream/runtime';
import { DeliveryHeaders, type CallbackRequestValue } from '@hookstream/contract';
import { type Partner, type PartnerDirectory } from '@hookstream/partners';
import type { CallbackSigner, SignedCallback } from '../adapters/signing';
import { recordableExcerpt, recordableHeaders } from './recorded-headers';
import { SIGNING_FAILURES } from './signing-failures';

/** A `callback-requests` record. */
export type CallbackRequest = CallbackRequestValue;

/** The headers of the request an attempt made, secret-bearing values redacted (adapters/signing/recorded-headers.ts). */
export type RequestHeaders = Record<string, string>;

/**
 * What one attempt came to (with the start of the partner's answer where it answered: responseExcerpt;
 * with the headers of the request made, where one was: requestHeaders):
 * - delivered: the partner answered 200;
 * - failed: anything else that may succeed later (another status, a timeout, a refused connection,
 *   a token endpoint down): the record goes on to the next retry tier;
 * - undeliverable: it can never succeed as configured (the partner or endpoint is gone or
 *   disabled, the auth cannot be used): straight to the dead-letter topic, no retries burnt.
 */
export type DeliveryOutcome =
  | { kind: 'delivered'; httpStatus: number; latencyMs: number; responseExcerpt: string; requestHeaders: RequestHeaders }
  | {
      kind: 'failed';
      httpStatus: number | null;
      errorClass: string;
      detail: string;
      latencyMs: number | null;
      retryAfterMs?: number;
      responseExcerpt: string | null;
      requestHeaders: RequestHeaders | null;
    }
  | { kind: 'undeliverable'; errorClass: string; detail: string }
  /** Not attempted: the partner's circuit opened while the record waited for a concurrency slot. */
  | { kind: 'circuit-open' };

/**
 * What one POST to a partner came to. Only a 200 is success (spec 4.1, 7.2). A response carries the
 * start of its body (adapters/http/response-excerpt.ts), empty when it had none. A body declared longer than
 * maxResponseBytes is dropped unread: its excerpt is what arrived with the headers, maybe nothing.
 */
export type AttemptResult =
  | { kind: 'response'; status: number; latencyMs: number; retryAfterMs?: number; responseExcerpt: string }
  | { kind: 'error'; errorClass: DeliveryErrorClass; message: string; latencyMs: number };

/** Why a POST got no answer: @hookstream/runtime's outbound failures, the names the document-fetcher records too. */
export type DeliveryErrorClass = OutboundFailure;

export interface DeliverCallbackDeps {
  partners: PartnerDirectory;
  /** Each partner's signer (adapters/signing/partner-signers). */
  signers: { signerFor(partner: Partner & { outbound_auth: NonNullable<Partner['outbound_auth']> }): CallbackSigner };
  /** POSTs a signed callback; never throws (adapters/http/http-delivery). */
  http: { post(url: string, signed: SignedCallback, timeoutMs: number): Promise<AttemptResult> };
  /** How long a record for a partner not (yet) in partner-config waits for it: covers a partner onboarded a moment ago. */
  unknownPartnerGraceMs: number;
  now?: () => Date;
}

/**
 * Delivers one callback attempt (spec 4.1, 5.1): finds the partner's endpoint, signs the body
 * afresh for this attempt and POSTs it. A partner whose fetched bearer token is refused (401)
 * gets one more try with a newly fetched token within the same attempt.
 */
export async function deliverCallback(request: CallbackRequest, attempt: number, deps: DeliverCallbackDeps): Promise<DeliveryOutcome> {
  const partner = await deps.partners.waitFor(request.partner_id, deps.unknownPartnerGraceMs);
  if (!partner) return { kind: 'undeliverable', errorClass: 'UNKNOWN_PARTNER', detail: `no partner "${request.partner_id}"` };
  if (partner.status !== 'ACTIVE') return { kind: 'undeliverable', errorClass: 'PARTNER_DISABLED', detail: 'the partner is disabled' };
  const endpoint = partner.callback_endpoints.find((e) => e.endpoint_id === request.endpoint_id);
  if (!endpoint) {
    return { kind: 'undeliverable', errorClass: 'UNKNOWN_ENDPOINT', detail: `partner has no endpoint "${request.endpoint_id}"` };
  }
  const auth = partner.outbound_auth;
  if (!auth) return { kind: 'undeliverable', errorClass: 'NO_OUTBOUND_AUTH', detail: 'the partner has no outbound auth' };

  const send = async (): Promise<(AttemptResult & { requestHeaders: RequestHeaders }) | DeliveryOutcome> => {
    let signed;
    try {
      const signer = deps.signers.signerFor({ ...partner, outbound_auth: auth });
      signed = await signer.sign({ body: request.body, deliveryId: request.delivery_id, now: deps.now?.() ?? new Date() });
    } catch (error) {
      if (isSsrfRefused(error)) return { kind: 'undeliverable', errorClass: OutboundFailures.ssrfRefused, detail: describeError(error) };
      const code = SIGNING_FAILURES.find((failure) => hasErrorCode(error, failure));
      if (code) {
        const { message, retryable } = error as HookstreamError;
        const errorClass = code.replace(/^HOOKSTREAM_/, '');
        return retryable
          ? {
              kind: 'failed',
              httpStatus: null,
              errorClass,
              detail: message,
              latencyMs: null,
              responseExcerpt: null,
              requestHeaders: null,
            }
          : { kind: 'undeliverable', errorClass, detail: message };
      }
      return { kind: 'undeliverable', errorClass: 'SIGNING_FAILED', detail: describeError(error) };
    }
    signed.headers[DeliveryHeaders.deliveryId] = request.delivery_id;
    signed.headers[DeliveryHeaders.eventId] = request.event_id;
    signed.headers[DeliveryHeaders.attempt] = String(attempt);
    // Taken before the POST: what is recorded is what was handed to the HTTP client, secrets redacted.
    const requestHeaders = recordableHeaders(signed);
    const answer = await deps.http.post(endpoint.url, signed, endpoint.timeout_ms);
    return answer.kind === 'response'
      ? { ...answer, responseExcerpt: recordableExcerpt(answer.responseExcerpt, signed), requestHeaders }
      : { ...answer, requestHeaders };
  };

  let result = await send();
  if ('kind' in result && result.kind === 'response' && result.status === 401 && auth.method === 'BEARER_FETCHED') {
    deps.signers.signerFor({ ...partner, outbound_auth: auth }).invalidateCredentials();
    result = await send();
  }
  switch (result.kind) {
    case 'response':
      return result.status === 200
        ? {
            kind: 'delivered',
            httpStatus: 200,
            latencyMs: result.latencyMs,
            responseExcerpt: result.responseExcerpt,
            requestHeaders: result.requestHeaders,
          }
        : {
            kind: 'failed',
            httpStatus: result.status,
            errorClass: 'HTTP_STATUS',
            detail: `HTTP ${result.status}`,
            latencyMs: result.latencyMs,
            ...(result.retryAfterMs === undefined ? {} : { retryAfterMs: result.retryAfterMs }),
            responseExcerpt: result.responseExcerpt,
            requestHeaders: result.requestHeaders,
          };
    case 'error':
      // A URL the SSRF guard refuses can never succeed as configured: no retries are burnt on it.
      if (result.errorClass === OutboundFailures.ssrfRefused)
        return { kind: 'undeliverable', errorClass: result.errorClass, detail: result.message };
      return {
        kind: 'failed',
        httpStatus: null,
        errorClass: result.errorClass,
        detail: result.message,
        latencyMs: result.latencyMs,
        responseExcerpt: null,
        requestHeaders: result.requestHeaders,
      };
    default:
      return result;
  }
}
