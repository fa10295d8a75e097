/*
 * What the partner and operator APIs take and answer, as zod schemas: the routes validate requests
 * with them and openapi.ts describes them, so the documentation and the checks cannot disagree.
 */
import { z } from 'zod';
import { DELIVERY_STATES } from '../../../adapters/store/tables';
import { decodeCursor } from '../../../adapters/store/queries/page';
import { isStorableTime, TIME_RANGE_MESSAGE } from '../../../adapters/store/storable-values';
import { Verification } from './verification-schema';
import { RetrySchedule } from './retry-schemas';
import { timelineFields } from './timeline-schema';

export const timestamp = z.iso.datetime({ offset: true }).meta({ description: 'RFC 3339 date-time', example: '2026-11-25T10:00:00Z' });

/** The trace a record belongs to, for an operator's trace store (docs/tracing.md). */
export const traceId = z
  .string()
  .regex(/^[0-9a-f]{32}$/)
  .nullable()
  .meta({
    description:
      'The OpenTelemetry trace id (W3C, 32 hex digits) this was recorded in, when that trace was sampled: quote it to the insurer’s support, who can open the whole trace (every service it crossed, with times). Null when not traced',
    example: '4bf92f3577b34da6a3ce929d0e0e4736',
  });

/** A time a request gives: RFC 3339 and one the store holds (year 0 or 10000 would reach PostgreSQL and fail there). */
export const timeInput = timestamp
  // Only of a well-formed time: one that is not is refused once, for its form.
  .refine((text) => isStorableTime(new Date(text)), { message: TIME_RANGE_MESSAGE, when: (payload) => payload.issues.length === 0 })
  .meta({ description: 'RFC 3339 date-time, 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z', example: '2026-11-25T10:00:00Z' });

/** Query parameters every list takes (webhook-schemas.ts's too). */
export const pageQuery = {
  cursor: z
    .string()
    .max(500)
    .refine((text) => decodeCursor(text) !== null, 'is not a cursor this API gave')
    .optional()
    .meta({ description: 'next_cursor of the previous page' }),
  limit: z.coerce.number().int().min(1).max(200).default(50).meta({ description: 'Items per page (1-200, default 50)' }),
  from: timeInput.optional().meta({ description: 'Only items at or after this time' }),
  to: timeInput.optional().meta({ description: 'Only items before this time' }),
};

/** A route that takes no query parameter refuses any, as every other route refuses one it does not know. */
export const NoQuery = z.strictObject({});

export const DeliveryState = z.enum(DELIVERY_STATES).meta({
  id: 'DeliveryState',
  description:
    'pending: not tried yet, or resent and not tried since; failing: the last attempt failed and retries remain; delivered: the partner ' +
    'answered 200; dead_lettered: every retry failed; superseded: not sent, a newer version of the policy was delivered first',
});

export const DeliveryListQuery = z.strictObject({
  status: DeliveryState.optional(),
  policy_number: z.string().min(1).max(100).optional(),
  endpoint_id: z.string().min(1).max(100).optional(),
  test: z.enum(['true', 'false']).default('false').meta({
    description:
      'false (default): real deliveries only; true: only test events (POST /endpoints/{endpoint_id}/test). Tests are kept out of the default list so that its states (failing …) are those of real callbacks',
  }),
  ...pageQuery,
});

export const ResendBody = z
  .strictObject({
    reason: z.string().trim().min(1).max(500).optional().meta({ description: 'Why, for the audit (default: resent from the partner API)' }),
  })
  .meta({ id: 'ResendRequest' });

export const Resent = z
  .object({
    delivery_id: z.string(),
    replay_id: z.string().meta({ description: 'The audit id of this resend' }),
    replay_count: z.number().int().meta({ description: 'Resends of this delivery so far, this one included' }),
  })
  .meta({ id: 'Resent' });

export const DeliverySummary = z
  .object({
    delivery_id: z.string(),
    partner_id: z.string(),
    endpoint_id: z.string(),
    event_id: z.string(),
    policy_number: z.string(),
    policy_version: z.number().int(),
    policy_status: z.string().nullable().meta({ description: 'Status sent; null until the request itself was read' }),
    state: DeliveryState,
    created_at: timestamp,
    attempt_count: z.number().int().meta({ description: 'Sends made (a resend starts again from 1 but the count goes on)' }),
    last_attempt_at: timestamp.nullable(),
    last_http_status: z.number().int().nullable().meta({ description: "The partner's last HTTP answer, even if later attempts got none" }),
    last_error_class: z.string().nullable(),
    dead_lettered_at: timestamp.nullable(),
    replay_count: z.number().int().meta({ description: 'Times it was resent from the dead letters' }),
    test: z.boolean().meta({ description: 'A test event (POST /endpoints/{endpoint_id}/test): a sample, never retried or dead-lettered' }),
    next_attempt_at: timestamp.nullable().meta({
      description: 'While failing: when its next attempt is due (the retry tier it waits in); null otherwise',
    }),
    trace_id: traceId,
  })
  .meta({ id: 'DeliverySummary' });

export const DeliveryAttempt = z
  .object({
    attempt: z.number().int().meta({ description: '1 is the first send; n the (n-1)th retry. A resend starts again at 1' }),
    tier: z.number().int().meta({ description: 'Retry tier the request was read from: 0 for the first send (or a resend), n for retry n' }),
    outcome: z.enum(['DELIVERED', 'FAILED_ATTEMPT', 'DEAD_LETTERED', 'SUPERSEDED', 'SKIPPED_CIRCUIT_OPEN', 'ALREADY_DELIVERED']).meta({
      description:
        'ALREADY_DELIVERED: not sent, this delivery was delivered already (by a retry now, or another send of it); a scheduled retry ends there',
    }),
    trigger: z.enum(['RETRY_NOW', 'TEST']).nullable().meta({
      description: 'RETRY_NOW: the attempt a retry now asked for; TEST: a test event; null for the scheduled sends',
    }),
    next_attempt_at: timestamp.nullable().meta({ description: 'For a failure that went to a retry tier: when that retry is due' }),
    http_status: z.number().int().nullable(),
    error_class: z.string().nullable(),
    latency_ms: z.number().nullable(),
    response_excerpt: z.string().nullable().meta({
      description:
        "The first 1,024 bytes of the partner's answer to this send, as UTF-8 text (no headers; a body that is not text shows replacement characters). Null when it did not answer, and for outcomes that are not a send",
    }),
    request_headers: z
      .record(z.string(), z.string())
      .nullable()
      .meta({
        description:
          'The headers we set on this send, by name as sent (the HTTP client adds host, connection and content-length): what you need to rebuild the signed string. ' +
          'The value of each header carrying a credential (an API key, Authorization) is "[redacted]"; a signature is kept as sent ' +
          '(you received it, and it reveals nothing of the secret), so you can compare your own HMAC with ours. ' +
          'Null for outcomes that are not a send, and for sends recorded before headers were',
        example: {
          'content-type': 'application/json',
          'X-API-Key': '[redacted]',
          'X-Timestamp': '2026-11-25T10:00:00.123Z',
          'X-Signature': 'p5Jx0T1kq5N3lq7lQ0p1D5z3l6yq3rG1G0Gq9r1yW4s=',
        },
      }),
    recorded_at: timestamp,
    trace_id: traceId,
  })
  .meta({ id: 'DeliveryAttempt' });

export const DeliveryReplay = z
  .object({
    replay_id: z.string(),
    operator: z.string().meta({ description: 'Who resent it (an operator, or the partner itself)' }),
    reason: z.string(),
    outcome: z.string().meta({ description: 'replayed, or why it was not (skipped-superseded …)' }),
    detail: z.string(),
    replayed_at: timestamp,
  })
  .meta({ id: 'DeliveryReplay' });

export const DeliveryDetail = DeliverySummary.extend({
  body: z.string().nullable().meta({
    description:
      'The body exactly as sent to the partner, after its mapping (with the MD5 body-field method: before the signature field was added)',
  }),
  attempts: z.array(DeliveryAttempt),
  replays: z.array(DeliveryReplay),
  verification: Verification.nullable().meta({
    description:
      'How to verify its callbacks; null while your outbound auth is not known to the log (none configured, or not seen since it began keeping it)',
  }),
  retry_schedule: RetrySchedule.nullable().meta({ description: 'While failing: the retries left; null otherwise' }),
  ...timelineFields,
}).meta({ id: 'DeliveryDetail' });

/** A page of a list: its items and the cursor of the next page. */
export const pageOf = <T extends z.ZodType>(item: T, id: string) =>
  z.object({ data: z.array(item), next_cursor: z.string().nullable() }).meta({ id });

export const one = <T extends z.ZodType>(item: T, id: string) => z.object({ data: item }).meta({ id });

export const ErrorBody = z
  .object({
    status: z.literal('failed'),
    data: z.null(),
    message: z.string(),
    code: z.number().int(),
    error_code: z.string(),
    fields: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .optional()
      .meta({
        description:
          'On a 400 for invalid input: every field at fault with what is wrong, by its path in the query or body; a partner spec’s own fields (onboarding, changes) by their path in the spec (callback_endpoints[0].url)',
      }),
  })
  .meta({ id: 'ErrorBody', description: "The inbound contract's error body; a 400 for invalid input adds `fields`" });

export const KeyRotationBody = z
  .strictObject({
    reason: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .meta({ description: 'Why, for the audit (default: rotated from the partner API)' }),
  })
  .meta({ id: 'KeyRotationRequest' });

export const RotatedKey = z
  .object({
    partner_id: z.string(),
    key_id: z.string(),
    api_key: z.string().meta({ description: 'The new key, shown only now' }),
    retiring: z
      .array(z.object({ key_id: z.string(), expires_at: timestamp }))
      .meta({ description: 'The other keys, each working until expires_at, so requests can switch over' }),
  })
  .meta({ id: 'RotatedKey' });

const windowHealth = z
  .object({
    sends: z.number().int().meta({ description: 'HTTP requests made (circuit-open skips are not sends)' }),
    delivered: z.number().int().meta({ description: 'Of them, answered 200' }),
    success_rate: z.number().nullable().meta({ description: 'delivered / sends; null without sends' }),
    p95_latency_ms: z.number().nullable(),
  })
  .meta({ id: 'WindowHealth' });

/** An endpoint's name and description as answered (the partner API; null: none set, or an endpoint since removed). */
export const endpointName = z
  .string()
  .nullable()
  .meta({ description: 'What the partner calls the endpoint (at most 80 characters); null: none, the endpoint_id stands for it' });
export const endpointDescription = z
  .string()
  .nullable()
  .meta({ description: 'What the endpoint is for (at most 300 characters); null: none' });

export const EndpointConfiguration = z
  .object({
    timeout_ms: z.number().int(),
    statuses: z.array(z.string()).meta({ description: 'Empty: every status' }),
    product_codes: z.array(z.string()).meta({ description: 'Agreed with the insurer; empty: every product' }),
    ordering: z.enum(['LATEST_WINS', 'NONE']),
    disabled: z.boolean().meta({ description: 'A disabled endpoint receives no new callback; those already queued are still sent' }),
  })
  .meta({ id: 'EndpointConfiguration' });

export const EndpointsHealth = z
  .object({
    circuit_state: z.enum(['open', 'closed', 'unknown']).meta({
      description:
        'open: the sender’s latest record for the partner is an attempt skipped because its circuit was open (no requests for a while, then one probe), or a dead-lettering because it stayed open; closed: it is a send, or a dead-lettering after failed sends; unknown: nothing in the last day',
    }),
    circuit_as_of: timestamp.nullable(),
    self_service: z
      .boolean()
      .optional()
      .meta({ description: 'The partner API: whether the partner may change its endpoints itself (false: the insurer turned it off)' }),
    endpoints: z.array(
      z.object({
        endpoint_id: z.string(),
        name: endpointName.optional(),
        description: endpointDescription.optional(),
        url: z.string().nullable().meta({ description: 'null for an endpoint since removed' }),
        configuration: EndpointConfiguration.nullable()
          .optional()
          .meta({ description: 'The partner API: how the endpoint is configured now; null for an endpoint since removed' }),
        last_hour: windowHealth,
        last_day: windowHealth,
        hourly: z
          .array(
            z.object({
              hour: timestamp,
              sends: z.number().int(),
              delivered: z.number().int(),
              p95_latency_ms: z.number().nullable(),
            }),
          )
          .meta({ description: 'The last day hour by hour, oldest first; hours without sends are left out' }),
      }),
    ),
  })
  .meta({ id: 'EndpointsHealth' });

/** Answers both APIs give, each declared once: the document may name a schema id only once. */
export const DeliveryPage = pageOf(DeliverySummary, 'DeliveryPage');
export const DeliveryAnswer = one(DeliveryDetail, 'DeliveryAnswer');

export const EndpointsHealthAnswer = one(EndpointsHealth, 'EndpointsHealthAnswer');
