/*
 * What the operator API takes and answers beyond the partner API's shapes (schemas.ts): the same
 * zod schemas validate requests and describe them in openapi.ts. A partner's spec is the one
 * `hookstream partners` reads (partnerSpecSchema, validated by @hookstream/partners' use cases); it appears
 * here only to be described.
 */
import { DLQ_TOPIC_CHOICES, type DlqTopicChoice } from '@hookstream/dead-letters';
import { OPERATOR_ROLES, partnerSpecSchema } from '@hookstream/partners';
import { z } from 'zod';
import { DeliveryListQuery, endpointDescription, endpointName, timeInput, timestamp } from './schemas';
import { RejectedWebhookListQuery, WebhookListQuery } from './webhook-schemas';

/** Why, for the audit trail: every write of an operator gives one. */
const reason = z
  .string()
  .trim()
  .min(1, 'say why (it goes into the audit trail)')
  .max(500)
  .meta({ description: 'Why, for the audit trail' });

const partnerFilter = { partner_id: z.string().min(1).max(100).optional().meta({ description: 'Only this partner’s' }) };

export const AdminDeliveryListQuery = DeliveryListQuery.extend(partnerFilter);
export const AdminWebhookListQuery = WebhookListQuery.extend(partnerFilter);
export const AdminRejectedWebhookListQuery = RejectedWebhookListQuery.extend(partnerFilter);

export const AuditListQuery = z.strictObject({
  actor_id: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: 'An actor’s id (ux-test), or its name as the trail shows it (partner:ux-test)' }),
  subject_id: z.string().min(1).max(200).optional().meta({ description: 'A partner id, an operator id or a replay id' }),
  action: z.string().min(1).max(100).optional().meta({ example: 'partner.rotate-key' }),
  cursor: DeliveryListQuery.shape.cursor,
  limit: DeliveryListQuery.shape.limit,
  from: DeliveryListQuery.shape.from,
  to: DeliveryListQuery.shape.to,
});

export const AuditRecord = z
  .object({
    audit_id: z.string(),
    at: timestamp,
    actor_type: z.enum(['operator', 'partner', 'cli']),
    actor_id: z.string(),
    actor_name: z.string(),
    action: z.string(),
    subject_type: z.string(),
    subject_id: z.string(),
    reason: z.string(),
    detail: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'AuditRecord' });

/** The body of a partner's creation, parsed loosely: the spec itself is @hookstream/partners' use case's to validate, field by field. */
const createEnvelope = <S extends z.ZodType>(spec: S) => z.strictObject({ reason, partner: spec });
export const PartnerCreateBody = createEnvelope(z.record(z.string(), z.unknown()));
export const PartnerCreateDoc = createEnvelope(partnerSpecSchema).meta({ id: 'PartnerCreateRequest' });

const updateEnvelope = <S extends z.ZodType>(changes: S) =>
  z.strictObject({
    reason,
    changes,
    revision: z.number().int().positive().optional().meta({
      description: 'The revision these changes were made to; refused with 409 when the partner has changed since (no lost update)',
    }),
  });
export const PartnerUpdateBody = updateEnvelope(z.record(z.string(), z.unknown()));
export const PartnerUpdateDoc = updateEnvelope(partnerSpecSchema.partial()).meta({
  id: 'PartnerUpdateRequest',
  description: 'Each top-level field given replaces the current one; the rest is kept (as `hookstream partners update`)',
});

export const ReasonBody = z.strictObject({ reason }).meta({ id: 'ReasonRequest' });

export const SelfServiceBody = z
  .strictObject({
    reason,
    enabled: z.boolean().meta({
      description: 'false: the partner’s own changes of its endpoints and signing secret (partner API) answer 403; true: allowed again',
    }),
  })
  .meta({ id: 'SelfServiceRequest' });

export const RotateKeyBody = z
  .strictObject({
    reason,
    overlap_hours: z.number().min(0).max(720).default(24).meta({ description: 'How long the other keys keep working (default 24)' }),
    expires_at: timeInput.optional().meta({ description: 'Expiry of the new key (default: none)' }),
  })
  .meta({ id: 'RotateKeyRequest' });

export const PortalTokenBody = z
  .strictObject({
    reason,
    ttl_minutes: z.number().int().min(1).max(1440).default(60).meta({ description: 'Lifetime, 1 minute to 24 hours (default 60)' }),
  })
  .meta({ id: 'PortalTokenRequest' });

export const PortalToken = z
  .object({ token: z.string(), token_id: z.string(), partner_id: z.string(), expires_at: timestamp })
  .meta({ id: 'PortalToken', description: 'Shown once; give it to the partner (Authorization: Bearer on the partner API)' });

export const PortalLink = z
  .object({
    token_id: z.string(),
    partner_id: z.string(),
    issued_by: z.string().nullable().meta({ description: 'The operator id that issued it' }),
    issued_at: timestamp,
    expires_at: timestamp,
    revoked_at: timestamp.nullable(),
    revoked_by: z.string().nullable().meta({ description: 'The operator id that revoked it (or disabled the partner)' }),
    revoke_reason: z.string().nullable(),
  })
  .meta({
    id: 'PortalLink',
    description: 'A portal token as issued (never the token itself); listed until retention prunes it after expiry',
  });

/** A partner as the operator API and `hookstream partners show --json` show it: secrets masked, keys without hashes. */
export const PartnerView = z
  .looseObject({
    partner_id: z.string(),
    name: z.string(),
    status: z.enum(['ACTIVE', 'DISABLED']),
    self_service: z
      .boolean()
      .meta({ description: 'false: the partner’s own changes of its endpoints and signing secret (partner API) are refused' }),
    revision: z.number().int(),
    updated_at: timestamp,
    callback_endpoints: z.array(
      z.object({
        endpoint_id: z.string(),
        name: endpointName,
        description: endpointDescription,
        url: z.string(),
        timeout_ms: z.number().int(),
        statuses: z.array(z.string()),
        product_codes: z.array(z.string()),
        ordering: z.enum(['LATEST_WINS', 'NONE']),
        disabled: z.boolean().meta({ description: 'A disabled endpoint receives no new callback' }),
      }),
    ),
    outbound_auth: z
      .looseObject({ method: z.string() })
      .optional()
      .meta({ description: 'The method and its fields, every secret masked as ********' }),
    body: z.looseObject({
      shape: z.string(),
      rules: z.array(z.looseObject({ source: z.string(), target: z.string() })),
      absent_fields: z.string(),
    }),
    api_keys: z.array(
      z.object({
        key_id: z.string(),
        prefix: z.string(),
        created_at: timestamp,
        expires_at: timestamp.nullable(),
        revoked_at: timestamp.nullable(),
      }),
    ),
  })
  .meta({
    id: 'Partner',
    description: 'The partner spec with every secret masked as ********, plus revision, updated_at and api_keys (id, prefix, dates)',
  });

export const NewKey = z
  .object({
    partner_id: z.string(),
    key_id: z.string(),
    api_key: z.string().meta({ description: 'Shown once' }),
    retiring: z.array(z.object({ key_id: z.string(), expires_at: timestamp })).optional(),
    partner: PartnerView,
  })
  .meta({ id: 'NewApiKey' });

export const OperatorView = z
  .object({
    operator_id: z.string(),
    name: z.string(),
    role: z.enum(OPERATOR_ROLES),
    token_prefix: z.string(),
    created_at: timestamp,
    created_by: z.string(),
    revoked_at: timestamp.nullable(),
  })
  .meta({ id: 'Operator' });

/** A list of values: a JSON array, or (in a query string) comma-separated or the parameter repeated. */
const list = (text: string) =>
  z
    .union([z.array(z.string().max(200)).max(1000), z.string().max(20_000)])
    .transform((value) => (Array.isArray(value) ? value : value.split(',')).map((v) => v.trim()).filter(Boolean))
    // The same bounds after a comma-separated string is split: 20,000 characters are about 5,000 short values.
    .pipe(z.array(z.string().max(200)).max(1000))
    .meta({ description: `${text}: an array, or comma-separated in a query` });

/** The filters of `hookstream dlq list` and `replay`, as query parameters or a replay's selection. */
const selectionShape = {
  topic: z
    .enum(DLQ_TOPIC_CHOICES as [DlqTopicChoice, ...DlqTopicChoice[]])
    .default('callback')
    .meta({ description: 'Which dead letters: callback, policy-status or documents' }),
  partner_id: list('Partner ids').optional(),
  since: timeInput.optional().meta({ description: 'Dead-lettered at or after' }),
  until: timeInput.optional().meta({ description: 'Dead-lettered before' }),
  error_class: list('Why dead-lettered, or the last attempt’s class (HTTP_STATUS, TIMEOUT…)').optional(),
  last_status: list('The partner’s last HTTP status').optional(),
  policy_number: list('Policy numbers').optional(),
  delivery_id: list('Delivery ids').optional(),
  event_id: list('Event ids').optional(),
  letters: list('Dead letters chosen one by one, each as partition:offset (the list’s partition and offset)').optional(),
};

export const DeadLetterListQuery = z.strictObject({
  ...selectionShape,
  limit: z.coerce.number().int().min(1).max(1000).default(100).meta({ description: 'Only the newest n of those selected (default 100)' }),
});

export const ReplayBody = z
  .strictObject({
    ...selectionShape,
    reason: reason.optional().meta({ description: 'Why (required unless dry_run); recorded with every record' }),
    dry_run: z
      .boolean()
      .default(true)
      .meta({ description: 'Only say what would be replayed and skipped (default true): send false to replay' }),
    force: z.boolean().default(false).meta({
      description:
        'Replay also what was replayed before or reached the replay limit (superseded ones never); default false: those are skipped',
    }),
    rate_per_second: z.number().min(1).max(1000).default(50).meta({ description: 'Records re-queued per second (default 50)' }),
  })
  .meta({ id: 'ReplayRequest' });

const nullableString = z.string().nullable();
const nullableInt = z.number().int().nullable();

/** letterJson's shape (@hookstream/dead-letters): the same for `hookstream dlq list --json`. */
export const DeadLetterView = z
  .object({
    topic: z.string(),
    partition: z.number().int(),
    offset: z.string(),
    dead_lettered_at: nullableString,
    partner_id: nullableString,
    policy_number: nullableString,
    policy_status: nullableString,
    policy_version: nullableInt,
    event_id: nullableString,
    delivery_id: nullableString,
    endpoint_id: nullableString,
    attempts: nullableInt,
    last_http_status: nullableInt,
    error_class: nullableString.meta({ description: 'Why dead-lettered, or the last attempt’s class (HTTP_STATUS, TIMEOUT…)' }),
    reason: nullableString,
    replay_count: z.number().int(),
    created_at: nullableString,
    undecodable: nullableString.meta({ description: 'Why its record could not be read, when it could not' }),
    replayed: z.boolean().optional().meta({ description: 'Whether the audit trail records a replay of this very dead letter' }),
  })
  .meta({ id: 'DeadLetter', description: 'A dead letter as `hookstream dlq list --json` shows it' });

/** decisionJson's shape (@hookstream/dead-letters). */
export const ReplayDecisionView = z
  .object({
    outcome: z.enum(['replayed', 'skipped-superseded', 'skipped-already-replayed', 'skipped-replay-limit', 'failed']),
    detail: z.string(),
    replay_count: z.number().int(),
    partition: z.number().int(),
    offset: z.string(),
    delivery_id: nullableString,
    event_id: nullableString,
    partner_id: nullableString,
    policy_number: nullableString,
    policy_version: nullableInt,
  })
  .meta({ id: 'ReplayDecision', description: 'A replay decision as `hookstream dlq replay --json` lists it' });

export const DeadLetterPage = z
  .object({ topic: z.string(), selected: z.number().int(), not_replayed: z.number().int(), dead_letters: z.array(DeadLetterView) })
  .meta({ id: 'DeadLetterPage' });

export const ReplayAnswer = z
  .object({
    dry_run: z.boolean(),
    replay_id: z.string().nullable().meta({ description: 'Id of the run in the audit (null for a dry run)' }),
    counts: z.record(z.string(), z.number().int()).meta({ description: 'Decisions by outcome' }),
    decisions: z.array(ReplayDecisionView),
  })
  .meta({ id: 'ReplayAnswer' });
