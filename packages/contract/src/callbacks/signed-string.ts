/*
 * The strings callbacks are signed over (spec 5.1), each stated once: the callback-sender's signers
 * compute their signatures over them, and the delivery log rebuilds the same string for a partner
 * from what the sender recorded (signed-request.ts). Kept in this package so that both read one recipe.
 * Strings are signed as their UTF-8 bytes.
 */
import type { Md5Part } from '@hookstream/partners';

/** HMAC_SHA256: api_key + "|" + timestamp + "|" + the raw body. */
export function hmacSha256SignedString(apiKey: string, timestamp: string, body: string): string {
  return `${apiKey}|${timestamp}|${body}`;
}

/** Headers every callback attempt carries besides its method's (docs/partners.md): the sender sets them, the delivery log's event catalogue names them. */
export const DeliveryHeaders = {
  deliveryId: 'x-hookstream-delivery-id',
  eventId: 'x-hookstream-event-id',
  attempt: 'x-hookstream-attempt',
} as const;

/** The headers of the Standard Webhooks method (https://www.standardwebhooks.com/). */
export const StandardWebhooksHeaders = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

/** STANDARD_WEBHOOKS: webhook-id + "." + webhook-timestamp + "." + the raw body. */
export function standardWebhooksSignedString(webhookId: string, timestamp: string, body: string): string {
  return `${webhookId}.${timestamp}.${body}`;
}

/**
 * MD5: the parts joined with no separator. SECRET: the secret; LITERAL: its text; BODY_FIELD: the
 * text of the field at its dotted path in `body` (the body parsed, without the digest field).
 */
export function md5SignedString(parts: readonly Md5Part[], secret: string, body: unknown): string {
  return parts
    .map((part) => {
      if (part.kind === 'SECRET') return secret;
      if (part.kind === 'LITERAL') return part.value;
      return fieldText(valueAtPath(body, part.value));
    })
    .join('');
}

/** Whether an MD5 contract reads fields of the body (then the body must be a JSON object). */
export function md5ReadsBody(parts: readonly Md5Part[]): boolean {
  return parts.some((p) => p.kind === 'BODY_FIELD');
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at a dotted path of objects (`policy_holder.full_name`); undefined when any step is missing. */
export function valueAtPath(value: unknown, path: string): unknown {
  let current = value;
  for (const step of path.split('.')) {
    if (!isJsonObject(current) || !Object.hasOwn(current, step)) return undefined;
    current = current[step];
  }
  return current;
}

/**
 * A field's value as text for a signed string: a string as is, null or absent as "", anything
 * else (number, boolean, object, array) as its JSON text, which is the text in a body that
 * JSON.stringify built.
 */
export function fieldText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}
