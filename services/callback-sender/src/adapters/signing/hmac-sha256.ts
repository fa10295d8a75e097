import { createHmac, createSecretKey } from 'node:crypto';
import { hmacSha256SignedString } from '@hookstream/contract';
import { type OutboundAuth } from '@hookstream/partners';
import type { AuthSecrets } from './reveal-secret';
import { jsonCallback, type SignAttempt } from './signed-callback';

type HmacSha256Auth = Extract<OutboundAuth, { method: 'HMAC_SHA256' }>;

/**
 * HMAC_SHA256 (spec 5.1): key header = the API key, timestamp header = now in UTC ISO 8601,
 * signature header = Base64(HMAC-SHA256(secret, api_key + "|" + timestamp + "|" + raw body))
 * (hmacSha256SignedString), over the exact bytes returned as the body. The secret is held as a
 * KeyObject only. The key header is secret-bearing; the timestamp and the signature are recorded.
 *
 * The header carries one signature, so a rotated secret cannot sign beside the old one: it is
 * staged (next_secret) and signs instead of it from next_secret_from on, judged at each attempt
 * (docs/partners.md "Rotating your signing secret").
 */
export function createHmacSha256Signer(auth: HmacSha256Auth, secrets: AuthSecrets): SignAttempt {
  const apiKey = secrets.revealHeaderValue('api_key', auth.api_key);
  const current = createSecretKey(Buffer.from(secrets.reveal('secret', auth.secret), 'utf8'));
  const next = auth.next_secret ? createSecretKey(Buffer.from(secrets.reveal('next_secret', auth.next_secret), 'utf8')) : null;
  const switchAt = auth.next_secret_from ?? Number.POSITIVE_INFINITY;
  const { key_header, timestamp_header, signature_header } = auth;
  return ({ body, now }) => {
    const timestamp = now.toISOString();
    const key = next && now.getTime() >= switchAt ? next : current;
    const signature = createHmac('sha256', key)
      .update(hmacSha256SignedString(apiKey, timestamp, body), 'utf8')
      .digest('base64');
    return jsonCallback(Buffer.from(body, 'utf8'), {
      plain: { [timestamp_header]: timestamp },
      signature: { [signature_header]: signature },
      secret: { [key_header]: apiKey },
    });
  };
}
