/* What a retry now and a test event take and answer (portal-routes.ts, admin routes), and a failing delivery's schedule. */
import { z } from 'zod';

const timestamp = z.iso.datetime({ offset: true }).meta({ description: 'RFC 3339 date-time', example: '2026-11-25T10:00:00Z' });

export const RetrySchedule = z
  .object({
    next_attempt_at: timestamp.meta({ description: 'When the next attempt is due' }),
    next_attempt: z.number().int().meta({ description: 'The number the next attempt will have' }),
    retries_left: z.number().int().meta({ description: 'Attempts left before the delivery is dead-lettered, the next one included' }),
    later_delays_ms: z.array(z.number().int()).meta({
      description: 'The waits between the retries after the next one, in ms, in order (the configured retry tiers)',
    }),
    ends_at: timestamp.meta({ description: 'When the last retry is due if every one fails (Retry-After answers may push it later)' }),
  })
  .meta({ id: 'RetrySchedule' });

export const RetryBody = z
  .strictObject({
    reason: z.string().trim().min(1).max(500).optional().meta({ description: 'Why, for the audit (default: retried now from the API)' }),
  })
  .meta({ id: 'RetryRequest' });

/** An operator's write always names its reason (docs/operator-api.md). */
export const AdminRetryBody = z
  .strictObject({ reason: z.string().trim().min(1).max(500).meta({ description: 'Why, for the audit' }) })
  .meta({ id: 'AdminRetryRequest' });

export const RetryAccepted = z
  .object({
    delivery_id: z.string().meta({ description: 'The same delivery: the partner receives it under this id again' }),
    retry_id: z.string().meta({ description: 'The audit id of this retry now' }),
  })
  .meta({ id: 'RetryAccepted' });

export const TestEventBody = z
  .strictObject({
    status: z
      .enum(['POLICY_ISSUING', 'POLICY_ACTIVE', 'POLICY_CANCELLED'])
      .meta({ description: 'The policy status the sample callback carries' }),
  })
  .meta({ id: 'TestEventRequest' });

export const TestEventResult = z
  .object({
    delivery_id: z.string().meta({ description: 'test_… : the test delivery, in the log with test: true' }),
    endpoint_id: z.string(),
    policy_number: z.string().meta({ description: 'The sample policy number (TEST-…)' }),
    status: z.string(),
    answered: z.boolean().meta({ description: 'false: the attempt was not in the log in time (202); poll GET /deliveries/{delivery_id}' }),
    outcome: z.enum(['DELIVERED', 'FAILED_ATTEMPT']).nullable(),
    http_status: z.number().int().nullable(),
    latency_ms: z.number().nullable(),
    error_class: z.string().nullable(),
    response_excerpt: z.string().nullable(),
    request_headers: z.record(z.string(), z.string()).nullable(),
  })
  .meta({ id: 'TestEventResult' });

export const RetryFailingBody = z
  .strictObject({
    dry_run: z.boolean().default(true).meta({ description: 'Only say what would be retried (default true): send false to retry' }),
    reason: z.string().trim().min(1).max(500).optional().meta({ description: 'Why, for the audit (default: retried now from the API)' }),
  })
  .meta({ id: 'RetryFailingRequest' });

const FailingItem = {
  delivery_id: z.string(),
  endpoint_id: z.string(),
  policy_number: z.string(),
  created_at: timestamp.meta({ description: 'When the delivery was made' }),
};

export const FailingRetry = z
  .object({
    dry_run: z.boolean(),
    endpoint_id: z.string(),
    selected: z.number().int().meta({ description: 'The endpoint’s failing deliveries this request looked at, the oldest first' }),
    more: z.boolean().meta({ description: 'More are failing beyond those: call again once these attempts are in the log' }),
    resends_left_this_hour: z.number().int().meta({ description: 'Resends and retries now the hour allowed before this request' }),
    retried: z
      .array(
        z.object({
          ...FailingItem,
          retry_id: z.string().nullable().meta({ description: 'The audit id of its retry now; null in a dry run' }),
        }),
      )
      .meta({ description: 'Retried now (in a dry run: would be)' }),
    not_retried: z
      .array(
        z.object({
          ...FailingItem,
          reason: z.enum(['in_flight', 'not_failing', 'hourly_limit']).meta({
            description:
              'in_flight: a retry now of it is already under way; not_failing: delivered, superseded or dead-lettered since; hourly_limit: no place left this hour',
          }),
          message: z.string(),
          retry_after_seconds: z.number().int().optional().meta({ description: 'hourly_limit: when a place frees' }),
        }),
      )
      .meta({ description: 'Not retried, each with why' }),
  })
  .meta({ id: 'FailingRetry' });
