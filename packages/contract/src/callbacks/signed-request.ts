/*
 * The string one callback attempt was signed over, rebuilt from what the delivery log holds: the
 * request's headers as the callback-sender recorded them (secret-bearing values redacted), the
 * body as sent (for MD5 in a body field: before the digest field), and the public part of the
 * partner's auth. The secrets the string holds are shown as placeholders. It lives beside the
 * recipes (signed-string.ts) so that the callback-sender's tests can prove, against its real
 * signers, that the rebuilt string with the placeholders filled in is exactly what was signed.
 */
import type { PublicOutboundAuth } from '@hookstream/partners';
import {
  StandardWebhooksHeaders,
  hmacSha256SignedString,
  md5ReadsBody,
  md5SignedString,
  standardWebhooksSignedString,
} from './signed-string';

/** What stands for each secret in a rebuilt string: the name of the outbound auth's field that holds it. */
export const SecretPlaceholders = { secret: '«secret»', apiKey: '«api_key»' } as const;

/**
 * The signed string of a request made with `headers` and `body`; null for a method that signs no
 * string (the credential is the header itself), or when the request lacks what the string needs
 * (a header the auth names now but the attempt did not carry, a body that is not a JSON object).
 */
export function signedStringOfRequest(auth: PublicOutboundAuth, headers: Readonly<Record<string, string>>, body: string): string | null {
  switch (auth.method) {
    case 'HMAC_SHA256': {
      const timestamp = headerValue(headers, auth.timestamp_header);
      return timestamp === undefined ? null : hmacSha256SignedString(SecretPlaceholders.apiKey, timestamp, body);
    }
    case 'STANDARD_WEBHOOKS': {
      const id = headerValue(headers, StandardWebhooksHeaders.id);
      const timestamp = headerValue(headers, StandardWebhooksHeaders.timestamp);
      return id === undefined || timestamp === undefined ? null : standardWebhooksSignedString(id, timestamp, body);
    }
    case 'MD5': {
      const fields = md5ReadsBody(auth.parts) ? jsonObject(body) : {};
      return fields === undefined ? null : md5SignedString(auth.parts, SecretPlaceholders.secret, fields);
    }
    default:
      return null;
  }
}

/** A header's value by its name in any case (HTTP header names are case-insensitive). */
export function headerValue(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return Object.entries(headers).find(([key]) => key.toLowerCase() === wanted)?.[1];
}

function jsonObject(body: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
