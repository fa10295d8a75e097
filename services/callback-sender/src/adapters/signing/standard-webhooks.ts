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
 *
 * After the partner rotated its secret, until previous_secret_until, the header carries two
 * signatures, the new secret's first: "v1,<new> v1,<old>" (the standard's space-separated list), so a
 * verifier holding either secret accepts the callback. The overlap is judged at each attempt.
 */
export function createStandardWebhooksSigner(auth: StandardWebhooksAuth, secrets: AuthSecrets): SignAttempt {
  const key = signingKey(secrets.reveal('secret', auth.secret), secrets.partnerId);
  const previous = auth.previous_secret ? signingKey(secrets.reveal('previous_secret', auth.previous_secret), secrets.partnerId) : null;
  const previousUntil = auth.previous_secret_until ?? 0;
  return ({ body, deliveryId, now }) => {
    const timestamp = String(Math.floor(now.getTime() / 1000));
    const signed = standardWebhooksSignedString(deliveryId, timestamp, body);
    const sign = (with_: KeyObject) => `v1,${createHmac('sha256', with_).update(signed, 'utf8').digest('base64')}`;
    const signatures = previous && now.getTime() < previousUntil ? `${sign(key)} ${sign(previous)}` : sign(key);
    return jsonCallback(Buffer.from(body, 'utf8'), {
      plain: { [StandardWebhooksHeaders.id]: deliveryId, [StandardWebhooksHeaders.timestamp]: timestamp },
      signature: { [StandardWebhooksHeaders.signature]: signatures },
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
