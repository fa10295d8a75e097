/*
 * Plain words for every code and state the console shows, by kind: what a partner or an operator
 * reads instead of `HTTP_STATUS` or `dead_lettered`, and what the glossary page (#/glossary)
 * explains. A unit test (test/console/glossary.test.ts) checks that every code the API can answer
 * (the error catalogue, the OpenAPI document's enums, the sender's error classes) has its entry.
 */
import { AUDIT_ACTIONS } from './audit-actions';
import { TIMELINE_STEPS } from './timeline-steps';

export interface Term {
  /** A few words, shown where the code is. */
  words: string;
  /** What it means and what to do, on the glossary page. */
  meaning: string;
  /** How a badge of it is coloured: only what needs someone's attention is an alert. */
  tone?: 'good' | 'warn' | 'bad' | 'neutral' | 'muted';
}

export type Kind = keyof typeof GLOSSARY;

const t = (words: string, meaning: string, tone?: Term['tone']): Term => (tone ? { words, meaning, tone } : { words, meaning });

export const GLOSSARY = {
  /** A callback delivery's state (the deliveries list, a delivery's page). */
  state: {
    pending: t(
      'pending',
      'Queued and not answered yet: the first send is on its way, or waiting its turn behind the same policy.',
      'neutral',
    ),
    failing: t(
      'failing, retrying',
      'The endpoint has not accepted it yet; it is sent again after growing pauses (retry 1, 2, …) until it is accepted or the retries run out.',
      'warn',
    ),
    delivered: t('delivered', 'The endpoint answered HTTP 200: it has the status.', 'good'),
    dead_lettered: t(
      'dead lettered',
      'Given up: every retry failed (or it could never be sent). Nothing is sent again by itself; a partner can Resend it, an operator can Replay it.',
      'bad',
    ),
    superseded: t(
      'superseded',
      'Not sent, and never will be: a newer status of the same policy reached the endpoint first, and the newer one is what counts.',
      'muted',
    ),
  },
  /** What one send of a delivery came to (a delivery's attempts). */
  outcome: {
    DELIVERED: t('delivered', 'The endpoint answered HTTP 200.', 'good'),
    FAILED_ATTEMPT: t('failed, will retry', 'This send failed (see its HTTP status or error); the delivery is sent again later.', 'warn'),
    DEAD_LETTERED: t('dead lettered', 'This was the last try: the delivery was given up.', 'bad'),
    SUPERSEDED: t('superseded', 'Not sent: a newer status of the policy was sent instead.', 'muted'),
    ALREADY_DELIVERED: t(
      'already delivered',
      'Not sent: a Retry now of this delivery was delivered after this retry was scheduled, so it was not needed. The delivery stays delivered.',
      'muted',
    ),
    SKIPPED_CIRCUIT_OPEN: t(
      'paused, circuit open',
      'Not sent: the partner’s endpoints failed many times in a row, so sending was paused for a while (see circuit open); it is tried again later.',
      'warn',
    ),
  },
  /** Why a send failed (a delivery's last error, an attempt's error, a dead letter's class). */
  'error-class': {
    HTTP_STATUS: t(
      'answered with an error status',
      'The endpoint answered, but not HTTP 200 (the only success; a 201 or 204 fails too): the HTTP status shown beside it (for example 503) says what it answered.',
    ),
    TIMEOUT: t('no answer in time', 'The endpoint did not answer within its timeout (10 s unless the partner set another).'),
    CONNECTION_REFUSED: t('connection refused', 'The endpoint’s host refused the connection: nothing listens at that address and port.'),
    CONNECTION_RESET: t('connection dropped', 'The connection was reset or closed while the request was being sent or answered.'),
    DNS_FAILURE: t('host name not found', 'The endpoint’s host name does not resolve.'),
    TLS_FAILURE: t('TLS failed', 'The secure connection could not be set up: the certificate or the handshake failed.'),
    INVALID_URL: t('not a valid URL', 'The endpoint’s address cannot be requested as it is written.'),
    SSRF_REFUSED: t(
      'address not allowed',
      'The endpoint’s host is, or resolves to, a private or local address, which callbacks are never sent to.',
    ),
    NETWORK_ERROR: t('network error', 'The request failed on the wire for another reason.'),
    CIRCUIT_OPEN: t(
      'paused, circuit open',
      'Not sent: the partner’s endpoints failed many times in a row, so sending was paused for a while before it is tried again.',
    ),
    PARTNER_DISABLED: t(
      'partner account disabled',
      'The insurer disabled the partner account, so its callbacks are not sent (and its keys open nothing). It is sent again once the account is enabled and the delivery replayed.',
    ),
    UNKNOWN_PARTNER: t('partner unknown', 'The partner is not (or no longer) configured.'),
    UNKNOWN_ENDPOINT: t('endpoint removed', 'The endpoint it was meant for is no longer configured for the partner.'),
    NO_OUTBOUND_AUTH: t(
      'no outbound authentication',
      'The partner has no way configured to authenticate our requests, so nothing is sent.',
    ),
    SIGNING_FAILED: t(
      'could not be signed',
      'The request could not be signed with the partner’s outbound authentication (for example its token endpoint failed).',
    ),
    DECODE_ERROR: t('unreadable record', 'The queued record could not be read, so it could not be sent.'),
    SIGNING_CONFIG_INVALID: t(
      'outbound authentication unusable',
      'The partner’s outbound authentication cannot be used as stored (a secret does not decrypt or is malformed): the operator fixes the partner.',
    ),
    SIGNATURE_INPUT_INVALID: t(
      'body cannot be signed',
      'The body cannot be signed as the partner’s authentication asks (MD5 over a body that is not a JSON object).',
    ),
    TOKEN_FETCH_FAILED: t(
      'token endpoint failed',
      'The partner’s token endpoint failed, timed out or answered without a token; it is tried again.',
    ),
    BODY_BUILD_FAILED: t(
      'callback body could not be built',
      'The partner’s body rules could not be applied to this policy status, so no callback was made.',
    ),
    RECORD_TOO_LARGE: t('too large to queue', 'The callback would be larger than a queued record may be, so it was not queued.'),
    TOO_LARGE: t('document too large', 'The document is larger than documents may be.'),
    UNSUPPORTED_SCHEME: t('not an http(s) address', 'The document’s address (or a redirect’s) is not http or https.'),
    TOO_MANY_REDIRECTS: t('too many redirects', 'The document’s address redirected more times than allowed.'),
  },
  /** A refusal's error_code (an API answer that failed). */
  'error-code': {
    INVALID_PAYLOAD_VALIDATION_ERR: t(
      'invalid input',
      'A field, parameter or body is missing or invalid; the message names each field at fault.',
    ),
    INVALID_API_KEY_ERR: t(
      'not signed in',
      'No credentials, or a key, token or session that is unknown, revoked, expired, or of a partner account the insurer disabled.',
    ),
    PARTNER_DISABLED_ERR: t(
      'partner account disabled',
      'The insurer disabled the partner account: its API keys, portal links and console sessions open nothing until the insurer enables it again.',
    ),
    FORBIDDEN_ERR: t(
      'not allowed',
      'Signed in, but this may not be done (a viewer changing something, or a write without its CSRF value: reload).',
    ),
    NOT_FOUND_ERR: t('not found', 'Nothing by that id that you may see.'),
    METHOD_NOT_ALLOWED_ERR: t('not supported here', 'The address exists but not for this kind of request.'),
    REQUEST_TIMEOUT_ERR: t('request too slow', 'The request did not arrive in time.'),
    IDEMPOTENCY_KEY_REUSED_ERR: t(
      'request_id reused',
      'This request_id was used before with a different body: send a new request_id for a new webhook.',
    ),
    CONFLICT_ERR: t(
      'not possible now',
      'It conflicts with what the thing is now (for example a delivery already resent); the message says why.',
    ),
    PAYLOAD_TOO_LARGE_ERR: t('too large', 'The body is larger than this endpoint takes.'),
    UNSUPPORTED_MEDIA_TYPE_ERR: t('not JSON', 'The body must be sent as application/json.'),
    TOO_MANY_REQUESTS_ERR: t(
      'too many requests',
      'Too many requests (or too many of this kind) in a short time: wait the time it says and try again.',
    ),
    REQUEST_HEADERS_TOO_LARGE_ERR: t('headers too large', 'The request’s headers are larger than allowed.'),
    MALFORMED_REQUEST_ERR: t('not JSON', 'The body is not valid JSON.'),
    INTERNAL_SERVER_ERR: t('failed on our side', 'Something failed in Hookstream; try again, and tell the insurer if it keeps failing.'),
    REQUEST_IN_PROGRESS_ERR: t(
      'still being processed',
      'A request with this request_id is still being processed: retry it a moment later.',
    ),
    SERVICE_UNAVAILABLE_ERR: t(
      'not available yet',
      'The service is starting or a store it needs is away; the console waits and tries again.',
    ),
  },
  /** What an inbound webhook was answered (the webhooks lists). */
  'webhook-status': {
    accepted: t('accepted', 'Answered 200: the webhook was taken and its documents are retrieved.', 'good'),
    replayed: t(
      'replayed ×n',
      'You sent the same webhook again (same request_id and body) n times since: each was answered 200 with the first answer and not processed again.',
      'neutral',
    ),
    refused: t(
      'refused',
      'Answered 400 or 409 and not taken: the error code and the fields listed say why. Its Status column is your transaction’s own status as you sent it.',
      'bad',
    ),
  },
  /** What became of an inbound webhook's document. */
  document: {
    PENDING: t('not retrieved yet', 'The document has not been fetched yet; it is retried.', 'neutral'),
    STORED: t('stored', 'The document was retrieved and stored.', 'good'),
    FAILED: t('could not be retrieved', 'The document could not be retrieved; the detail says why.', 'bad'),
  },
  /** The partner's circuit, as the sender last recorded it. */
  circuit: {
    closed: t('closed (normal)', 'Normal: callbacks are sent as they come.', 'neutral'),
    open: t(
      'open (sending paused)',
      'After many failures in a row sending is paused for a while, so a failing endpoint is not flooded; one probe is sent before sending resumes.',
      'warn',
    ),
    unknown: t('not known yet', 'The sender has not recorded the circuit yet (no callbacks sent lately).', 'neutral'),
  },
  /** A dead-letter replay's decision for one dead letter. */
  replay: {
    replayed: t('replayed', 'Queued again: it is sent from the first try.', 'good'),
    'skipped-superseded': t('skipped: superseded', 'Not replayed: a newer status of the policy was delivered since.', 'muted'),
    'skipped-already-replayed': t('skipped: already replayed', 'Not replayed: it was replayed before (force replays it again).', 'muted'),
    'skipped-replay-limit': t('skipped: replayed too often', 'Not replayed: it was replayed the most times allowed.', 'muted'),
    failed: t('failed', 'It could not be queued again; the detail says why.', 'bad'),
  },
  /** A partner account's status. */
  'partner-status': {
    ACTIVE: t('active', 'The partner’s webhooks are taken and its callbacks sent.', 'good'),
    DISABLED: t(
      'disabled',
      'The insurer disabled the account: its API keys, portal links and console sessions open nothing, and its callbacks are not sent.',
      'muted',
    ),
  },
  /** A step of a delivery's timeline (timeline-steps.ts). */
  step: TIMELINE_STEPS,
  /** An audit trail action in words (audit-actions.ts). */
  'audit-action': AUDIT_ACTIONS,
  /** Terms the views use that are not codes. */
  term: {
    retry: t(
      'retry n',
      'Which try a send was: the first try, then retry 1, 2, … after growing pauses (the retry tier it was sent from). A resend starts again at the first try.',
    ),
    'policy-version': t(
      'policy version',
      'The version number the insurer’s policy system gave this status of the policy. Often a time in seconds, it only orders the statuses of one policy: a higher one is newer, and an older one is not sent once a newer one was (superseded).',
    ),
    'retry-now': t(
      'retry now',
      'One more send of a failing delivery, asked for by you (or an operator) and made within seconds under the same delivery id, even while the circuit is open. Delivered: the retry already scheduled sends nothing. Failed: the schedule goes on.',
    ),
    'test-event': t(
      'test event',
      'A sample callback (policy number TEST-…) sent once to one of your endpoints to try it, signed as real ones; never retried, and listed apart from real deliveries.',
    ),
    times: t(
      'times',
      'Every time is shown in your browser’s time zone with its offset from UTC (UTC+07:00), so it can be compared with the times in bodies and headers.',
    ),
  },
} satisfies Record<string, Record<string, Term>>;

/** The entry for `code` of `kind`, when there is one. */
export function termOf(kind: Kind, code: string): Term | undefined {
  return (GLOSSARY[kind] as Record<string, Term>)[code];
}

/** The id of an entry on the glossary page (its anchor). */
export function entryId(kind: Kind, code: string): string {
  return `${kind}-${code}`;
}

/** Kinds with their headings, in the glossary page's order. */
export const KIND_TITLES: Record<Kind, string> = {
  state: 'Delivery states',
  outcome: 'Outcomes of a send',
  'error-class': 'Why a send failed',
  'error-code': 'Why a request was refused',
  'webhook-status': 'Inbound webhooks',
  document: 'Documents of a webhook',
  circuit: 'Circuit',
  replay: 'Replay decisions',
  'partner-status': 'Partner accounts',
  step: 'Steps of a delivery',
  'audit-action': 'Audit trail actions',
  term: 'Other terms',
};
