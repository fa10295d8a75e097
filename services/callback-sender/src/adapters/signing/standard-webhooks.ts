import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { StandardWebhooksHeaders, standardWebhooksSignedString } from '@hookstream/contract';
import { type OutboundAuth } from '@hookstream/partners';
import type { AuthSecrets } from './reveal-secret';
import { jsonCallback, type SignAttempt } from './signed-callback';
import { ErrorCodes } from '@hookstream/errors';
import { CallbackSigningError } from './signing-error';

type StandardWebhooksAuth = Extract<OutboundAuth, { method: 'STANDARD_WEBHOOKS' }>;

/**
 * Standard Webhooks (https://www.standardwebhooks.com/): webhook-id = the delivery id (the same
 * on every retry, as the standard wants), webhook-timestamp = unix seconds of the attempt,
 * webhook-signature = "v1," + Base64(HMAC-SHA256(key, id + "." + timestamp + "." + body))
 * (standardWebhooksSignedString). Nothing is secret-bearing: the signature is recorded.
 */
export function createStandardWebhooksSigner(auth: StandardWebhooksAuth, secrets: AuthSecrets): SignAttempt {
  const key = signingKey(secrets.reveal('secret', auth.secret), secrets.partnerId);
  return ({ body, deliveryId, now }) => {
    const timestamp = String(Math.floor(now.getTime() / 1000));
    const signed = standardWebhooksSignedString(deliveryId, timestamp, body);
    const signature = createHmac('sha256', key).update(signed, 'utf8').digest('base64');
    return jsonCallback(Buffer.from(body, 'utf8'), {
      plain: { [StandardWebhooksHeaders.id]: deliveryId, [StandardWebhooksHeaders.timestamp]: timestamp },
      signature: { [StandardWebhooksHeaders.signature]: `v1,${signature}` },
    });
  };
}

/** The key is the base64 after the `whsec_` prefix (the prefix is optional, as in the reference libraries). */
function signingKey(secret: string, partnerId: string): KeyObject {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  // Buffer.from(…, 'base64') skips characters it does not know: check the alphabet first.
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
    throw new CallbackSigningError(
      ErrorCodes.SIGNING_CONFIG_INVALID,
      `partner "${partnerId}": outbound_auth.secret is not whsec_ followed by base64`,
      { details: { partnerId, field: 'secret' } },
    );
  }
  return createSecretKey(Buffer.from(encoded, 'base64'));
}
