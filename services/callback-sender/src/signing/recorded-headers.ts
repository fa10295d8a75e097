import type { SignedCallback } from './signed-callback';

/** What a secret-bearing header's value is recorded as. */
export const REDACTED = '[redacted]';

/**
 * The headers of a signed callback as they may be recorded (callback-outcomes, and from there the
 * delivery log): every name with its value, except that the value of each header its signer
 * declared secret-bearing is REDACTED. Names are compared in any case, as HTTP does, so a header
 * the sender added under another case of a secret name is redacted too.
 */
export function recordableHeaders(signed: SignedCallback): Record<string, string> {
  const secret = new Set(signed.secretHeaderNames.map((name) => name.toLowerCase()));
  return Object.fromEntries(
    Object.entries(signed.headers).map(([name, value]) => [name, secret.has(name.toLowerCase()) ? REDACTED : value]),
  );
}
