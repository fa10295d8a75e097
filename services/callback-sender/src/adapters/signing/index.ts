export { createCallbackSigner, type CallbackSigner, type CallbackSignerOptions } from './callback-signer';
export type { SignInput, SignedCallback } from './signed-callback';
export {
  BearerTokenFetcher,
  DEFAULT_TOKEN_LIFETIME_SECONDS,
  type BearerFetchedAuth,
  type BearerTokenFetcherOptions,
} from './bearer-token-fetcher';
export { MAX_TOKEN_RESPONSE_BYTES } from './token-request';
export { CallbackSigningError, type CallbackSigningErrorCode } from './signing-error';
