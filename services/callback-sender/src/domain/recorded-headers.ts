import type { SignedCallback } from '../adapters/signing/signed-callback';

/** What a credential header's value is recorded as. */
export const REDACTED = '[redacted]';

/**
 * The headers of a signed callback as they may be recorded (callback-outcomes, and from there the
 * delivery log): every name with its value, except that the value of each header its signer
 * declared secret-bearing (a credential) is REDACTED. A signature is kept: the partner received
 * it, and comparing it with its own HMAC is how it finds a wrong secret or body. Names are compared in any case, as HTTP does, so a header
 * the sender added under another case of a secret name is redacted too.
 */
export function recordableHeaders(signed: SignedCallback): Record<string, string> {
  const secret = new Set(signed.secretHeaderNames.map((name) => name.toLowerCase()));
  return Object.fromEntries(
    Object.entries(signed.headers).map(([name, value]) => [name, secret.has(name.toLowerCase()) ? REDACTED : value]),
  );
}

/**
 * A partner's answer as it may be recorded: an endpoint that echoes what it received (a debug
 * endpoint, a verbose error page) would hand our credentials back in it, so every secret-bearing
 * header's value (and, for "Bearer x" or "Basic x", the credential alone) is REDACTED there too.
 */
export function recordableExcerpt(excerpt: string, signed: SignedCallback): string {
  if (!excerpt) return excerpt;
  const secret = new Set(signed.secretHeaderNames.map((name) => name.toLowerCase()));
  const values = Object.entries(signed.headers)
    .filter(([name]) => secret.has(name.toLowerCase()))
    .flatMap(([, value]) => [value, value.replace(/^(Bearer|Basic)\s+/i, '')])
    // Too short to be a credential: replacing it would only garble the answer.
    .filter((value) => value.length >= 8)
    .sort((a, b) => b.length - a.length);
  return values.reduce((text, value) => text.split(value).join(REDACTED), excerpt);
}
