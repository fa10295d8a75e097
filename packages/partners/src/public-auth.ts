import type { JwtAlgorithm, Md5Part, OutboundAuth } from './model';

/**
 * What of a partner's outbound auth explains how its callbacks are signed, without a secret: the
 * header names, the MD5 contract (parts, literals included: they are agreed text, not secrets),
 * the JWT's algorithm, issuer and lifetime. Each method's fields are picked one by one, so a
 * secret added to OutboundAuth later stays out until someone decides otherwise here.
 */
export type PublicOutboundAuth =
  | { method: 'API_KEY'; header_name: string }
  | { method: 'HMAC_SHA256'; key_header: string; timestamp_header: string; signature_header: string }
  | { method: 'MD5'; parts: Md5Part[]; placement: 'HEADER' | 'BODY_FIELD'; target: string }
  | { method: 'BEARER_STATIC' }
  | { method: 'BEARER_JWT'; algorithm: JwtAlgorithm; issuer: string; lifetime_seconds: number }
  // Its token request (URL, headers, body) is between the partner and its token endpoint: not needed to check a callback.
  | { method: 'BEARER_FETCHED' }
  // The username is not a secret, but the partner knows it and nothing is checked with it alone.
  | { method: 'BASIC' }
  | { method: 'STANDARD_WEBHOOKS' };

export function publicOutboundAuth(auth: OutboundAuth): PublicOutboundAuth {
  switch (auth.method) {
    case 'API_KEY':
      return { method: auth.method, header_name: auth.header_name };
    case 'HMAC_SHA256': {
      const { key_header, timestamp_header, signature_header } = auth;
      return { method: auth.method, key_header, timestamp_header, signature_header };
    }
    case 'MD5':
      return {
        method: auth.method,
        parts: auth.parts.map((p) => ({ kind: p.kind, value: p.value })),
        placement: auth.placement,
        target: auth.target,
      };
    case 'BEARER_JWT':
      return { method: auth.method, algorithm: auth.algorithm, issuer: auth.issuer, lifetime_seconds: auth.lifetime_seconds };
    case 'BEARER_STATIC':
    case 'BEARER_FETCHED':
    case 'BASIC':
    case 'STANDARD_WEBHOOKS':
      return { method: auth.method };
  }
}
