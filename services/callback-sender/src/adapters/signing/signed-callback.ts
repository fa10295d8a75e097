/** What is signed and sent for one attempt. `body` is the exact bytes to POST. */
export interface SignedCallback {
  /**
   * `content-type` plus the auth headers: fixed names in lower case (`authorization`,
   * `webhook-id`), names agreed with the partner as configured (`X-API-Key`). A new object on
   * every call: the sender may add its own headers to it.
   */
  headers: Record<string, string>;
  /**
   * The names in `headers` whose values carry a credential (an API key, a token, Basic
   * credentials, a JWT): declared by the signer that made them, so whatever records the request
   * knows what to leave out without guessing from names (recorded-headers.ts). A signature is not
   * one: the partner received it, and an HMAC or MD5 digest reveals nothing of its key.
   */
  secretHeaderNames: readonly string[];
  body: Buffer;
}

export interface SignInput {
  /** The JSON body built for the partner (UTF-8 text). For MD5 with placement BODY_FIELD the signer adds the digest field. */
  body: string;
  /** Stable per delivery, the same on every attempt. */
  deliveryId: string;
  /** The attempt's clock (inject for tests). */
  now: Date;
}

/** Signs one attempt with credentials that a method's factory prepared once. */
export type SignAttempt = (input: SignInput) => SignedCallback | Promise<SignedCallback>;

/**
 * A method's headers: `plain` ones may be recorded (timestamps, ids); `signature` ones may be
 * recorded too, and are shown to the partner so it can compare its own HMAC with ours; `secret`
 * ones carry a credential itself and are never recorded.
 */
export interface AuthHeaders {
  plain?: Record<string, string>;
  signature?: Record<string, string>;
  secret?: Record<string, string>;
}

/** A JSON callback carrying the method's headers. */
export function jsonCallback(body: Buffer, { plain = {}, signature = {}, secret = {} }: AuthHeaders): SignedCallback {
  return {
    headers: { 'content-type': 'application/json', ...plain, ...signature, ...secret },
    secretHeaderNames: Object.keys(secret),
    body,
  };
}
