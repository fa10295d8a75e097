import type { InboundRejectionValue } from '@hookstream/contract';
import type { Refusal } from '@hookstream/errors';
import { payloadFingerprint } from './payload-fingerprint';
import { RecordedBounds, recordedRequest, type RequestAsReceived } from './refused-request';

/*
 * A webhook refused an authenticated partner, described so the partner can later see why
 * (inbound-rejections, then the delivery log's partner API): what it was told, what could be read
 * of the body, and the request as it arrived, bounded, credentials redacted (refused-request.ts). Only 400s (the body or its fields) and 409s (a
 * request_id reused) are worth it: the other refusals say nothing about what the partner sent.
 */

/** The answers whose refusals are recorded. */
export const RECORDED_STATUSES: ReadonlySet<number> = new Set([400, 409]);

/**
 * What the ingress had read of the body when it refused it: the text once UTF-8, the value once
 * JSON, the request_id once the fields are valid (for the log), the fingerprint once computed.
 */
export interface BodyAsRead {
  text?: string;
  parsed?: unknown;
  requestId?: string;
  fingerprint?: string;
}

/** What a rejection says about the request; the recorder adds its own id and the replica's. */
export type WebhookRejection = Omit<InboundRejectionValue, 'rejection_id' | 'ingress_instance'>;

/*
 * Bounds of what is recorded: a refused body is the partner's, not ours, so each piece read from
 * it is capped (a message echoes field names, which may be as long as the body).
 */
const MESSAGE_MAX_CHARACTERS = 2000;
const FIELDS_MAX = 50;
const FIELD_MAX_CHARACTERS = 200;
/** A request_id or transaction_number longer than this is left out rather than cut: a cut one would match no search. */
const IDENTIFIER_MAX_CHARACTERS = 200;

/** Text that fits Avro (UTF-8, so no lone surrogate) and `max` UTF-16 units. */
const bounded = (text: string, max: number) => text.toWellFormed().slice(0, max).toWellFormed();

/** A string field of the body when it is one (the body may be any JSON, or none), within bounds. */
function identifierOf(body: unknown, field: 'request_id' | 'transaction_number'): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
  const value = (body as Record<string, unknown>)[field];
  return typeof value === 'string' && value.length <= IDENTIFIER_MAX_CHARACTERS && value.isWellFormed() ? value : null;
}

/**
 * The rejection of a request refused with `refusal` (as answered: its status, code, message and its
 * fields) after `body` was read; `request` is the request as received (no headers and no body when
 * not given).
 */
export function rejectionOf(
  partnerId: string,
  receivedAt: number,
  refusal: Refusal,
  body: BodyAsRead = {},
  request: RequestAsReceived = { rawHeaders: [] },
): WebhookRejection {
  const isJson = body.text !== undefined && 'parsed' in body;
  return {
    partner_id: partnerId,
    received_at: receivedAt,
    http_status: refusal.httpStatus,
    error_code: refusal.code,
    message: bounded(refusal.message, MESSAGE_MAX_CHARACTERS),
    fields: refusal.fields.slice(0, FIELDS_MAX).map(({ field }) => bounded(field, FIELD_MAX_CHARACTERS)),
    request_id: identifierOf(body.parsed, 'request_id'),
    transaction_number: identifierOf(body.parsed, 'transaction_number'),
    payload_fingerprint: body.fingerprint ?? (isJson ? payloadFingerprint(body.parsed, body.text) : null),
    problems: refusal.fields.slice(0, FIELDS_MAX).map(({ field, message }) => ({
      field: bounded(field, FIELD_MAX_CHARACTERS),
      message: bounded(message, RecordedBounds.problemMessage),
    })),
    ...recordedRequest(request),
  };
}
