/** What is signed and sent for one attempt. `body` is the exact bytes to POST. */
export interface SignedCallback {
  /**
   * `content-type` plus the auth headers: fixed names in lower case (`authorization`,
   * `webhook-id`), names agreed with the partner as configured (`X-API-Key`). A new object on
   * every call: the sender may add its own headers to it.
   */
  headers: Record<string, string>;
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

/** A JSON callback carrying `authHeaders`. */
export function jsonCallback(body: Buffer, authHeaders: Record<string, string>): SignedCallback {
  return { headers: { 'content-type': 'application/json', ...authHeaders }, body };
}
