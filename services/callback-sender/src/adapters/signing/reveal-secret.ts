import { secretContext } from '@hookstream/partners';
import { type EncryptedSecret, type SecretBox } from '@hookstream/runtime';
import { ErrorCodes } from '@hookstream/errors';
import { CallbackSigningError } from './signing-error';

/** The plaintext of a partner's outbound-auth secrets, each named by its field as in `secretFields`. */
export interface AuthSecrets {
  readonly partnerId: string;
  reveal(field: string, secret: EncryptedSecret): string;
  /** As `reveal`, for a secret sent in a header: refused when it could not be sent as one. */
  revealHeaderValue(field: string, secret: EncryptedSecret): string;
}

/** Decrypts with each secret's GCM context (`secretContext`); a failure names the field, never a value. */
export function authSecrets(secrets: SecretBox, partnerId: string): AuthSecrets {
  const reveal = (field: string, secret: EncryptedSecret): string => {
    try {
      return secrets.decrypt(secret, secretContext(partnerId, field));
    } catch (cause) {
      throw new CallbackSigningError(ErrorCodes.SIGNING_CONFIG_INVALID, `partner "${partnerId}": outbound_auth.${field} does not decrypt`, {
        cause,
        details: { partnerId, field },
      });
    }
  };
  return {
    partnerId,
    reveal,
    revealHeaderValue: (field, secret) => checkHeaderValue(partnerId, field, reveal(field, secret)),
  };
}

/**
 * Refuses a value with CR, LF or NUL: undici would throw when sending it, on every attempt,
 * and a line break in a header value is how header injection works.
 */
export function checkHeaderValue(partnerId: string, field: string, value: string): string {
  if (/[\r\n\0]/.test(value)) {
    throw new CallbackSigningError(
      ErrorCodes.SIGNING_CONFIG_INVALID,
      `partner "${partnerId}": outbound_auth.${field} cannot be sent in a header (it holds a line break or NUL)`,
      { details: { partnerId, field } },
    );
  }
  return value;
}
