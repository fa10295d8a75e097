/** What is signed and sent for one attempt. `body` is the exact bytes to POST. */
export interface SignedCallback {
  /**
   * `content-type` plus the auth headers: fixed names in lower case (`authorization`,
   * `webhook-id`), names agreed with the partner as configured (`X-API-Key`). A new object on
   * every call: the sender may add its own headers to it.
   */
  headers: Record<string, string>;
  /**
   * The names in `headers` whose values carry a secret or a value derived from one (a key, a
   * token, a signature): declared by the signer that made them, so whatever records the request
   * knows what to leave out without guessing from names (recorded-headers.ts).
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

/** A method's headers: `plain` ones may be recorded (timestamps, ids), `secret` ones carry a secret or what is derived from one. */
export interface AuthHeaders {
  plain?: Record<string, string>;
  secret?: Record<string, string>;
}

/** A JSON callback carrying the method's headers. */
export function jsonCallback(body: Buffer, { plain = {}, secret = {} }: AuthHeaders): SignedCallback {
  return {
    headers: { 'content-type': 'application/json', ...plain, ...secret },
    secretHeaderNames: Object.keys(secret),
    body,
  };
}
