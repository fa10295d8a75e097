/*
 * The shapes of the operator's views across partners (failing endpoints, the partner search) and
 * of a partner's recovery of its dead letters: the routes validate with them and the OpenAPI
 * document describes them (admin-paths.ts, portal-paths.ts).
 */
import { z } from 'zod';
import { MAX_RECOVERED_PER_REQUEST } from '../../../domain/recover-dead-letters';
import { one, timeInput, timestamp } from './schemas';

export const FailingEndpointsQuery = z.strictObject({
  partner_id: z.string().min(1).max(100).optional().meta({ description: 'Only this partner’s endpoints' }),
  limit: z.coerce.number().int().min(1).max(200).default(50).meta({ description: 'Endpoints per page (1-200, default 50)' }),
  offset: z.coerce
    .number()
    .int()
    .min(0)
    .max(10_000)
    .default(0)
    .meta({ description: 'How many of the sorted endpoints to pass over (next_offset of the previous page)' }),
});

export const FailingEndpoint = z
  .object({
    partner_id: z.string(),
    partner_name: z.string().nullable(),
    endpoint_id: z.string(),
    endpoint_name: z.string().nullable().meta({ description: 'What the partner calls the endpoint; null: no name, or since removed' }),
    url: z.string().nullable().meta({ description: 'Null when the partner no longer has the endpoint' }),
    sends_last_hour: z.number().int(),
    delivered_last_hour: z.number().int(),
    success_rate_last_hour: z.number().nullable().meta({ description: 'delivered / sends over the last hour; null without sends' }),
    failed_last_hour: z.number().int().meta({ description: 'Sends not answered 200 in the last hour' }),
    failed_last_day: z.number().int(),
    last_http_status: z.number().int().nullable().meta({ description: 'The last send’s HTTP answer; null when it got none' }),
    last_error_class: z.string().nullable().meta({ description: 'The last send’s failure (HTTP_STATUS, TIMEOUT, CONNECTION…)' }),
    last_attempt_at: timestamp.nullable(),
    circuit_state: z.enum(['open', 'closed', 'unknown']).meta({ description: 'The partner’s circuit, as endpoint health says it' }),
    dead_letters_waiting: z.number().int().meta({ description: 'Its deliveries dead-lettered and not resent or replayed since' }),
    oldest_dead_letter_at: timestamp.nullable(),
  })
  .meta({ id: 'FailingEndpoint' });

export const FailingEndpointsPage = z
  .object({
    data: z.array(FailingEndpoint),
    total: z.number().int().meta({ description: 'Failing endpoints in all' }),
    next_offset: z.number().int().nullable().meta({ description: 'offset of the next page; null on the last' }),
  })
  .meta({
    id: 'FailingEndpointsPage',
    description:
      'Endpoints with a failed send in the last day, deliveries still dead-lettered, or their partner’s circuit open; ' +
      'most dead letters waiting first, then most failed sends in the last hour, then in the last day',
  });

export const PartnerListQuery = z.strictObject({
  search: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .meta({ description: 'Only partners whose id or name contains this, whatever its case' }),
});

export const RecoverBody = z
  .strictObject({
    since: timeInput.meta({ description: 'Resend what was dead-lettered at or after this time' }),
    until: timeInput.optional().meta({
      description: 'And before this time (default: now). Send the dry run’s `until` so the real run resends what the dry run showed',
    }),
    endpoint_id: z.string().min(1).max(100).optional().meta({ description: 'Only this endpoint’s (one of yours)' }),
    dry_run: z.boolean().default(true).meta({ description: 'Only say what would happen (default true): send false to resend' }),
    reason: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .meta({ description: 'Why, for the audit (default: recovered from the partner API)' }),
  })
  .meta({ id: 'RecoverRequest' });

const RecoveryItem = {
  delivery_id: z.string(),
  endpoint_id: z.string(),
  policy_number: z.string(),
  dead_lettered_at: timestamp,
};

export const Recovery = z
  .object({
    dry_run: z.boolean(),
    since: timestamp,
    until: timestamp.meta({
      description: 'The end of the time looked at (the request’s `until`, else when it was answered): send it as `until` with the real run',
    }),
    endpoint_id: z.string().nullable(),
    selected: z
      .number()
      .int()
      .meta({
        description: `Deliveries dead-lettered since then and waiting, oldest first, at most ${MAX_RECOVERED_PER_REQUEST} per request`,
      }),
    more: z.boolean().meta({ description: 'More are waiting beyond these: recover again once these are done' }),
    resends_left_this_hour: z.number().int().meta({ description: 'Resends the hourly limit allowed when the request came' }),
    resent: z
      .array(z.object({ ...RecoveryItem, replay_id: z.string().nullable().meta({ description: 'Null in a dry run' }) }))
      .meta({ description: 'Resent (in a dry run: would be resent now)' }),
    not_resent: z
      .array(
        z.object({
          ...RecoveryItem,
          reason: z.enum(['superseded', 'already_resent', 'resent_too_often', 'hourly_limit', 'cannot_resend']),
          message: z.string(),
          retry_after_seconds: z.number().int().optional().meta({ description: 'hourly_limit: when a place frees' }),
        }),
      )
      .meta({ description: 'Not resent, and why' }),
  })
  .meta({ id: 'Recovery' });

export const RecoveryAnswer = one(Recovery, 'RecoveryAnswer');
