/*
 * How a partner verifies a delivery's callbacks, from its outbound auth as the log holds it now (the
 * public part: header names, the MD5 contract, the JWT's algorithm and issuer) and what the latest
 * send carried: the steps in words, one function per method, and the exact string that send was
 * signed over with its secrets as placeholders. The string comes from @hookstream/contract's signedStringOfRequest,
 * the recipe the sender signs by; the sender's tests prove it against its real signers.
 */
import { SecretPlaceholders, StandardWebhooksHeaders, signedStringOfRequest } from '@hookstream/contract';
import { type PublicOutboundAuth } from '@hookstream/partners';
import type { RequestHeaders } from '../adapters/store/tables';

export interface Verification {
  method: PublicOutboundAuth['method'];
  steps: string[];
  /** What the latest send was signed over, secrets as placeholders; null for a method that signs nothing, or before any send. */
  signed_string: string | null;
  /** The header carrying the signature (HMAC_SHA256, MD5 in a header, STANDARD_WEBHOOKS). */
  signature_header: string | null;
  /** The top-level body field carrying the signature (MD5 in a body field). */
  signature_field: string | null;
  /** The header carrying a credential to compare with yours (an API key, a token, Basic credentials, a JWT). */
  credential_header: string | null;
}

/**
 * The key a callback carries (API_KEY, HMAC_SHA256), named apart from the partner's own hsk_… API
 * key: "your API key" read as the sign-in key, and a verification with it failed (issue 46).
 */
const CALLBACK_KEY =
  'the callback key: the value the insurer set with you at onboarding (shown here only as [redacted]; ask your contact if you lack it), not the hsk_… API key you sign in with';

type Explanation = Omit<Verification, 'method' | 'signed_string'>;
type AuthOf<M extends PublicOutboundAuth['method']> = Extract<PublicOutboundAuth, { method: M }>;

/**
 * The verification of a delivery whose body is `body`, by `auth`; `latestHeaders` are the recorded
 * headers of its latest send (null before one), which the signed string is rebuilt from.
 */
export function verificationOf(auth: PublicOutboundAuth, latestHeaders: RequestHeaders | null, body: string | null): Verification {
  const signedString = latestHeaders !== null && body !== null ? signedStringOfRequest(auth, latestHeaders, body) : null;
  return { method: auth.method, ...explanationOf(auth), signed_string: signedString };
}

function explanationOf(auth: PublicOutboundAuth): Explanation {
  switch (auth.method) {
    case 'API_KEY':
      return credentialOnly(auth.header_name, [`${auth.header_name} carries ${CALLBACK_KEY}: compare it with the one you hold.`]);
    case 'BEARER_STATIC':
      return credentialOnly('authorization', ['Authorization is "Bearer " followed by the token agreed with you: compare it with yours.']);
    case 'BEARER_FETCHED':
      return credentialOnly('authorization', [
        'Authorization is "Bearer " followed by a token your token endpoint issued to us: check it as your endpoint\'s tokens are checked (known, not expired).',
      ]);
    case 'BASIC':
      return credentialOnly('authorization', [
        'Authorization is "Basic " followed by the Base64 of username ":" password (UTF-8): decode it and compare both with the credentials agreed with you.',
      ]);
    case 'BEARER_JWT':
      return bearerJwt(auth);
    case 'HMAC_SHA256':
      return hmacSha256(auth);
    case 'MD5':
      return md5(auth);
    case 'STANDARD_WEBHOOKS':
      return standardWebhooks();
  }
}

/** A method that signs nothing: the credential in a header is what is checked. */
function credentialOnly(header: string, steps: string[]): Explanation {
  return {
    steps: [...steps, 'Nothing is signed: compare in constant time, and only over HTTPS.'],
    signature_header: null,
    signature_field: null,
    credential_header: header,
  };
}

function bearerJwt(auth: AuthOf<'BEARER_JWT'>): Explanation {
  return {
    steps: [
      'Authorization is "Bearer " followed by a JWT made for this send alone.',
      `Verify its signature with ${auth.algorithm} and the UTF-8 bytes of the secret shared with you as the key; accept no other alg.`,
      `Check that iss is "${auth.issuer}" and exp has not passed (exp = iat + ${auth.lifetime_seconds} s); to refuse a replay, refuse a jti you have seen.`,
    ],
    signature_header: null,
    signature_field: null,
    credential_header: 'authorization',
  };
}

function hmacSha256(auth: AuthOf<'HMAC_SHA256'>): Explanation {
  return {
    steps: [
      `Take ${auth.timestamp_header} as received (UTC ISO 8601); refuse one too far from your clock to stop replays.`,
      `Build the signed string: the callback key (the value of ${auth.key_header}), "|", that timestamp, "|", then the body exactly as received (signed_string: the latest send's, ${SecretPlaceholders.apiKey} standing for the callback key).`,
      'Compute HMAC-SHA256 over its UTF-8 bytes, keyed with the UTF-8 bytes of your shared secret, and Base64 it (with padding).',
      `Compare it with ${auth.signature_header} in constant time; ${auth.key_header} carries ${CALLBACK_KEY}: compare it with the one you hold too.`,
    ],
    signature_header: auth.signature_header,
    signature_field: null,
    credential_header: auth.key_header,
  };
}

function md5(auth: AuthOf<'MD5'>): Explanation {
  const parts = auth.parts.map((p) => {
    if (p.kind === 'SECRET') return `your secret (${SecretPlaceholders.secret})`;
    if (p.kind === 'LITERAL') return `the text ${JSON.stringify(p.value)}`;
    return `the body field ${p.value}`;
  });
  const inHeader = auth.placement === 'HEADER';
  return {
    steps: [
      `Build the signed string: ${parts.join(', ')}, joined with no separator. A body field counts as its text: a string as is, a number, boolean, object or array as its JSON text, null or absent as nothing (signed_string: the latest send's).`,
      ...(inHeader
        ? []
        : [
            `Read the fields from the body as received: the digest was computed before the field "${auth.target}" was added as its last top-level field (body shows the body before it).`,
          ]),
      `Compute MD5 over its UTF-8 bytes as 32 lowercase hex digits, and compare it with ${inHeader ? `the header ${auth.target}` : `the body field "${auth.target}"`} in constant time.`,
    ],
    signature_header: inHeader ? auth.target : null,
    signature_field: inHeader ? null : auth.target,
    credential_header: null,
  };
}

function standardWebhooks(): Explanation {
  const { id, timestamp, signature } = StandardWebhooksHeaders;
  return {
    steps: [
      `Take ${id} (the delivery id, the same on every retry: deduplicate on it) and ${timestamp} (unix seconds); refuse a timestamp too far from your clock.`,
      `Build the signed string: ${id}, ".", ${timestamp}, ".", then the body exactly as received (signed_string: the latest send's; it holds no secret).`,
      'Compute HMAC-SHA256 over its UTF-8 bytes, keyed with the Base64-decoded part of your secret after "whsec_", and Base64 it.',
      `${signature} holds "v1," followed by that value (several are separated by spaces): compare in constant time. Any Standard Webhooks library does all of this.`,
    ],
    signature_header: signature,
    signature_field: null,
    credential_header: null,
  };
}
