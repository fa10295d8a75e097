/*
 * The partner and operator APIs' inbound webhooks as the OpenAPI document describes them: the
 * accepted ones (with their documents and replays) and the refused ones, their lists and queries.
 */
import { CREDENTIAL_HEADER_PARTS } from '@hookstream/contract';
import { z } from 'zod';
import { one, pageOf, pageQuery, timestamp, traceId } from './schemas';

export const WebhookListQuery = z.strictObject({
  transaction_number: z.string().min(1).max(100).optional(),
  request_id: z.string().min(1).max(200).optional(),
  ...pageQuery,
});

export const WebhookSummary = z
  .object({
    webhook_id: z.string(),
    partner_id: z.string(),
    request_id: z.string().nullable(),
    transaction_number: z.string(),
    transaction_type: z.string(),
    status: z.string(),
    received_at: timestamp,
    documents_stored: z.number().int().meta({ description: 'Its documents retrieved and stored' }),
    documents_failed: z.number().int().meta({ description: 'Its documents that could not be retrieved (the detail says why)' }),
    documents_pending: z.number().int().meta({ description: 'Its documents not retrieved yet' }),
    replay_count: z.number().int().meta({
      description:
        'How often you sent it again with the same request_id and payload since: each answered 200 with the first answer, not processed again (replays are recorded up to a bound per partner, so this may count fewer under a flood)',
    }),
    last_replayed_at: timestamp.nullable().meta({ description: 'When it was last sent again; null when never' }),
    trace_id: traceId,
  })
  .meta({ id: 'WebhookSummary' });

export const WebhookDocument = z
  .object({
    document_id: z.string(),
    document_index: z.number().int(),
    document_type: z.string(),
    source_url: z.string(),
    filename: z.string().nullable(),
    outcome: z.enum(['PENDING', 'STORED', 'FAILED']),
    content_type: z.string().nullable(),
    size_bytes: z.number().int().nullable(),
    sha256: z.string().nullable(),
    error: z.string().nullable(),
    failure_reason: z.string().nullable(),
    http_status: z.number().int().nullable(),
    attempts: z.number().int(),
    fetched_at: timestamp.nullable(),
  })
  .meta({ id: 'WebhookDocument' });

export const WebhookReplay = z
  .object({
    replay_id: z.string(),
    received_at: timestamp.meta({ description: 'When the repeated request came in' }),
  })
  .meta({ id: 'WebhookReplay' });

export const WebhookDetail = WebhookSummary.extend({
  payload_fingerprint: z.string(),
  documents: z.array(WebhookDocument),
  replays: z.array(WebhookReplay).meta({ description: 'Its replays, newest first, at most 50 (replay_count has them all)' }),
}).meta({ id: 'WebhookDetail' });

export const RejectedWebhookListQuery = z.strictObject({
  request_id: z.string().min(1).max(200).optional(),
  ...pageQuery,
});

export const RejectedWebhook = z
  .object({
    rejection_id: z.string(),
    partner_id: z.string(),
    received_at: timestamp,
    http_status: z.number().int().meta({ description: 'What the webhook was answered: 400 or 409' }),
    error_code: z.string().meta({ description: 'The answer’s error_code, e.g. INVALID_PAYLOAD_VALIDATION_ERR' }),
    message: z.string().meta({ description: 'The answer’s message, naming every problem (at most 2000 characters)' }),
    fields: z.array(z.string()).meta({ description: 'Paths of the fields the answer named (documents[0].url; request_id for a 409)' }),
    request_id: z.string().nullable().meta({ description: 'The body’s request_id, when it could be read' }),
    transaction_number: z.string().nullable().meta({ description: 'The body’s transaction_number, when it could be read' }),
    payload_fingerprint: z.string().nullable().meta({ description: 'SHA-256 of the body’s canonical JSON; null when it was not JSON' }),
  })
  .meta({ id: 'RejectedWebhook' });

export const RejectedWebhookDetail = RejectedWebhook.extend({
  problems: z
    .array(z.object({ field: z.string(), message: z.string() }))
    .meta({ description: 'Each field the answer named with what is wrong with it, in the answer’s order (at most 50)' }),
  request_headers: z.array(z.object({ name: z.string(), value: z.string() })).meta({
    description:
      'The request’s headers as they arrived, in order (at most 100, values cut at 1024 characters). The value of any header whose ' +
      `name contains ${CREDENTIAL_HEADER_PARTS.join(', ')} (in any case) is "[redacted]", never kept; every other is as it arrived. ` +
      'Empty for webhooks refused before requests were kept.',
  }),
  headers_truncated: z.boolean().meta({ description: 'Whether headers were left out or cut' }),
  body: z
    .string()
    .nullable()
    .meta({
      description:
        'The body as it arrived (its Content-Encoding undone), its first 16384 bytes as UTF-8 text (bytes that are not UTF-8 show ' +
        'as U+FFFD); null when none was read or the webhook was refused before bodies were kept',
    }),
  body_size: z.number().int().nullable().meta({ description: 'The whole body’s size in bytes; null when body is' }),
  body_truncated: z.boolean().meta({ description: 'Whether body holds only the first 16384 bytes' }),
}).meta({ id: 'RejectedWebhookDetail' });

export const WebhookPage = pageOf(WebhookSummary, 'WebhookPage');
export const WebhookAnswer = one(WebhookDetail, 'WebhookAnswer');
export const RejectedWebhookPage = pageOf(RejectedWebhook, 'RejectedWebhookPage');
export const RejectedWebhookAnswer = one(RejectedWebhookDetail, 'RejectedWebhookAnswer');
