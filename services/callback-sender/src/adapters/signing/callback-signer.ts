import type { Dispatcher } from 'undici';
import type { AuthMethod, OutboundAuth } from '@hookstream/partners';
import type { SecretBox } from '@hookstream/runtime';
import { BearerTokenFetcher, type BearerFetchedAuth } from './bearer-token-fetcher';
import { createHmacSha256Signer } from './hmac-sha256';
import { createBearerJwtSigner } from './jwt';
import { createMd5Signer } from './md5-signature';
import { authSecrets, type AuthSecrets } from './reveal-secret';
import { jsonCallback, type SignAttempt, type SignInput, type SignedCallback } from './signed-callback';
import { createStandardWebhooksSigner } from './standard-webhooks';
import { createStaticCredentialSigner } from './static-credentials';

/** Signs a partner's callbacks with its outbound auth (spec 5.1). */
export interface CallbackSigner {
  readonly method: AuthMethod;
  /** Signs one attempt afresh (timestamps, JWTs: never reused between attempts). */
  sign(input: SignInput): Promise<SignedCallback>;
  /** Called by the sender after the partner answered 401: BEARER_FETCHED drops its cached token so the next sign fetches a new one. No-op for others. */
  invalidateCredentials(): void;
}

export interface CallbackSignerOptions {
  /** Partner the auth belongs to: binds each secret's decryption context (`secretContext`). */
  partnerId: string;
  /** The partner's outbound auth as stored (Partner.outbound_auth), secrets encrypted. */
  auth: OutboundAuth;
  /** Decrypts the secrets, once, when the signer is created. */
  secrets: SecretBox;
  /** BEARER_FETCHED: the partner's token cache, shared by its signers; built from the same auth. Default: a new one. */
  tokenFetcher?: BearerTokenFetcher;
  /** BEARER_FETCHED without `tokenFetcher`: agent for the token requests (the SSRF-guarded one). Required then, with no default (bearer-token-fetcher.ts). */
  dispatcher?: Dispatcher;
}

/**
 * The signer of one partner revision. Secrets are decrypted here, once, and kept only in the
 * method's closure (HMAC keys as KeyObjects); a secret that does not decrypt or cannot be used
 * throws CallbackSigningError SIGNING_CONFIG_INVALID now rather than at every attempt.
 */
export function createCallbackSigner(options: CallbackSignerOptions): CallbackSigner {
  const { partnerId, auth, secrets } = options;
  if (auth.method === 'BEARER_FETCHED') {
    const fetcher = options.tokenFetcher ?? tokenFetcherOf(options, auth);
    return {
      method: auth.method,
      sign: async ({ body }) => jsonCallback(Buffer.from(body, 'utf8'), { secret: { authorization: `Bearer ${await fetcher.token()}` } }),
      invalidateCredentials: () => fetcher.invalidate(),
    };
  }
  const signAttempt = attemptSigner(auth, authSecrets(secrets, partnerId));
  return {
    method: auth.method,
    sign: async (input) => signAttempt(input),
    invalidateCredentials: () => {},
  };
}

/** A token fetcher of the signer's own: only with the dispatcher given (no unguarded default). */
function tokenFetcherOf({ partnerId, secrets, dispatcher }: CallbackSignerOptions, auth: BearerFetchedAuth): BearerTokenFetcher {
  if (!dispatcher) throw new Error(`partner "${partnerId}": BEARER_FETCHED needs a tokenFetcher or a dispatcher (the SSRF-guarded one)`);
  return new BearerTokenFetcher({ partnerId, auth, secrets, dispatcher });
}

function attemptSigner(auth: Exclude<OutboundAuth, { method: 'BEARER_FETCHED' }>, secrets: AuthSecrets): SignAttempt {
  switch (auth.method) {
    case 'API_KEY':
    case 'BEARER_STATIC':
    case 'BASIC':
      return createStaticCredentialSigner(auth, secrets);
    case 'HMAC_SHA256':
      return createHmacSha256Signer(auth, secrets);
    case 'MD5':
      return createMd5Signer(auth, secrets);
    case 'BEARER_JWT':
      return createBearerJwtSigner(auth, secrets);
    case 'STANDARD_WEBHOOKS':
      return createStandardWebhooksSigner(auth, secrets);
  }
}
