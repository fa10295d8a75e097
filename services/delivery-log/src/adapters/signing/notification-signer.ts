/*
 * Signs an operational notification with the partner's signing secret, by the recipes its callbacks
 * are signed with (@hookstream/contract: standardWebhooksSignedString, hmacSha256SignedString) and
 * under the same header names, so the verification code a partner runs on its callbacks accepts its
 * notifications too (docs/notifications.md). Only the two methods that have a signing secret sign a
 * notification: the callback-sender's own signers (every method, token fetches included) are that
 * service's, and a service may not import another's sources; moving them into a package is the way
 * to add the others. The secrets are decrypted per notification and never leave this module.
 */
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { hmacSha256SignedString, StandardWebhooksHeaders, standardWebhooksSignedString } from '@hookstream/contract';
import { secretContext, type Partner } from '@hookstream/partners';
import type { EncryptedSecret, SecretBox } from '@hookstream/runtime';
import type { NotificationSigner } from '../../domain/send-notifications';

export function notificationSigner(box: SecretBox): NotificationSigner {
  return (partner: Partner, input: { id: string; body: string; now: Date }) => {
    const auth = partner.outbound_auth;
    const reveal = (field: string, secret: EncryptedSecret) => box.decrypt(secret, secretContext(partner.partner_id, field));
    if (auth?.method === 'STANDARD_WEBHOOKS') {
      const timestamp = String(Math.floor(input.now.getTime() / 1000));
      const signed = standardWebhooksSignedString(input.id, timestamp, input.body);
      const sign = (key: KeyObject) => `v1,${createHmac('sha256', key).update(signed, 'utf8').digest('base64')}`;
      const current = sign(whsecKey(reveal('secret', auth.secret)));
      // After a rotation both secrets sign until previous_secret_until, the new one's first (as the sender's signer).
      const previous =
        auth.previous_secret && input.now.getTime() < (auth.previous_secret_until ?? 0)
          ? ` ${sign(whsecKey(reveal('previous_secret', auth.previous_secret)))}`
          : '';
      return {
        [StandardWebhooksHeaders.id]: input.id,
        [StandardWebhooksHeaders.timestamp]: timestamp,
        [StandardWebhooksHeaders.signature]: `${current}${previous}`,
      };
    }
    if (auth?.method === 'HMAC_SHA256') {
      const timestamp = input.now.toISOString();
      const apiKey = reveal('api_key', auth.api_key);
      const switched = auth.next_secret && input.now.getTime() >= (auth.next_secret_from ?? Number.POSITIVE_INFINITY);
      const secret = switched ? reveal('next_secret', auth.next_secret!) : reveal('secret', auth.secret);
      const signature = createHmac('sha256', createSecretKey(Buffer.from(secret, 'utf8')))
        .update(hmacSha256SignedString(apiKey, timestamp, input.body), 'utf8')
        .digest('base64');
      return { [auth.key_header]: apiKey, [auth.timestamp_header]: timestamp, [auth.signature_header]: signature };
    }
    return undefined;
  };
}

/** The key is the base64 after the optional `whsec_` prefix (the sender's standard-webhooks.ts). */
function whsecKey(secret: string): KeyObject {
  return createSecretKey(Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64'));
}
