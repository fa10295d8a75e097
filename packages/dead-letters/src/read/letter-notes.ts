import { SpringDltHeaders } from '@hookstream/kafka';
import { type CallbackRequestValue } from '@hookstream/contract';
import { type CallbackEndpoint, type Partner } from '@hookstream/partners';
import { RetryHeaders, headerCount, headerText } from '@hookstream/kafka';
import type { DeadLetter } from './dead-letter';
import type { IHeaders } from '@hookstream/kafka';

/** Spring's binary dead-letter headers and their widths: 4-byte partition, 8-byte offset and timestamp. */
const BINARY_HEADERS: Record<string, 4 | 8> = {
  [SpringDltHeaders.originalPartition]: 4,
  [SpringDltHeaders.originalOffset]: 8,
  [SpringDltHeaders.originalTimestamp]: 8,
};

/** Every header as text: Spring's binary ones as their numbers, the rest as UTF-8. */
export function describeHeaders(headers: Record<string, Buffer>): Record<string, string> {
  const described: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const width = BINARY_HEADERS[name];
    if (width === 4 && value.length === 4) described[name] = String(value.readInt32BE());
    else if (width === 8 && value.length === 8) described[name] = value.readBigInt64BE().toString();
    else described[name] = value.toString('utf8');
  }
  return described;
}

/** In the words of dead letters written before the sender and the fetcher recorded the status in a header (`the last: HTTP 500`). */
const HTTP_STATUS = /\bHTTP (\d{3})\b/;

/**
 * Why a dead letter that went through retry tiers was dead-lettered, from its headers: Spring's
 * exception headers, else the last error; the attempts; the partner's last HTTP status (the header,
 * or for older records the reason's words); and the last attempt's failure class.
 */
export function failureOf(
  headers: IHeaders | undefined,
): Pick<DeadLetter, 'reason' | 'attempts' | 'lastHttpStatus' | 'errorClass' | 'lastAttemptErrorClass'> {
  const reason = headerText(headers, SpringDltHeaders.exceptionMessage) ?? headerText(headers, RetryHeaders.lastError) ?? null;
  return {
    reason,
    attempts: headerCount(headers, RetryHeaders.attempts),
    lastHttpStatus: headerCount(headers, RetryHeaders.lastHttpStatus) ?? (Number(HTTP_STATUS.exec(reason ?? '')?.[1]) || null),
    errorClass: headerText(headers, SpringDltHeaders.exceptionFqcn) ?? null,
    lastAttemptErrorClass: headerText(headers, RetryHeaders.lastAttemptErrorClass) ?? null,
  };
}

/**
 * The retry history a dead letter's headers carry, the same on every topic whose records went
 * through retry tiers (callbacks, documents): attempts, first and last failure, the last error,
 * where it was first read, and the replays before this one.
 */
export function retryHistory(letter: DeadLetter, headers: Record<string, Buffer>): Record<string, string | number | null> {
  const time = (name: string) => {
    const at = headerCount(headers, name);
    return at === null ? null : new Date(at).toISOString();
  };
  const text = (name: string) => headerText(headers, name);
  return {
    attempts: letter.attempts,
    first_failure_at: time(RetryHeaders.firstFailureAt),
    last_failure_at: time(RetryHeaders.lastFailureAt),
    last_error: text(RetryHeaders.lastError) ?? null,
    first_read_at: `${text(RetryHeaders.originalTopic) ?? '?'} ${text(RetryHeaders.originalPartition) ?? '?'}:${text(RetryHeaders.originalOffset) ?? '?'}`,
    replays_before: letter.replayCount,
  };
}

/**
 * What a replay of this callback would meet at the sender now (deliver-callback.ts), in words: a
 * partner, endpoint or auth that is missing or disabled dead-letters it again at once; otherwise
 * it is sent as built, signed afresh, and any change to the partner since it was built is named.
 */
export function partnerNote(partner: Partner | undefined, request: CallbackRequestValue, endpoint: CallbackEndpoint | undefined): string {
  const again = (errorClass: string, why: string) => `${why}: a replay would be dead-lettered again (${errorClass})`;
  if (!partner) return again('UNKNOWN_PARTNER', `partner "${request.partner_id}" is not in partner-config`);
  if (partner.status !== 'ACTIVE') return again('PARTNER_DISABLED', `partner "${partner.partner_id}" is disabled`);
  if (!endpoint) return again('UNKNOWN_ENDPOINT', `partner "${partner.partner_id}" has no endpoint "${request.endpoint_id}" now`);
  const auth = partner.outbound_auth;
  if (!auth) return again('NO_OUTBOUND_AUTH', `partner "${partner.partner_id}" has no outbound auth`);
  const notes = [`sent as built at ${new Date(request.created_at).toISOString()}, signed afresh with ${auth.method}`];
  if (auth.method === 'MD5' && auth.placement === 'BODY_FIELD') notes.push(`which appends the digest as body field "${auth.target}"`);
  if (partner.updated_at > request.created_at) {
    notes.push(
      `the partner changed after it was built (revision ${partner.revision}, ${new Date(partner.updated_at).toISOString()}): ` +
        'a replay keeps the body mapping of then; to send with today’s, publish the policy event again (`hookstream policy publish`)',
    );
  }
  return notes.join('; ');
}
