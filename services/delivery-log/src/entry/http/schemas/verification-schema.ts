/*
 * The `verification` of one delivery's answer (domain/signature-explanation.ts builds it): how the
 * partner checks the callbacks it received, for its outbound auth method.
 */
import { AUTH_METHODS } from '@hookstream/partners';
import { z } from 'zod';

export const Verification = z
  .object({
    method: z.enum(AUTH_METHODS).meta({ description: 'Your outbound auth method, as configured now' }),
    steps: z
      .array(z.string())
      .meta({ description: 'How to verify a callback of this method, in order, with your header names and contract' }),
    signed_string: z
      .string()
      .nullable()
      .meta({
        description:
          'The exact text the latest send (the last attempt with request_headers) was signed over, rebuilt from its recorded headers and `body`; ' +
          'sign its UTF-8 bytes with the secret placeholders replaced: «secret» by your shared secret (MD5), «api_key» by the callback key your callbacks carry in their key header, not your hsk_… API key (HMAC_SHA256). ' +
          'Null for methods that sign nothing (API_KEY, BEARER_STATIC, BEARER_FETCHED, BASIC, BEARER_JWT), before any send, or when that send ' +
          'lacks a header your configuration now names',
        example: '«api_key»|2026-11-25T10:00:00.123Z|{"policy_number":"P-1"}',
      }),
    signature_header: z.string().nullable().meta({
      description: 'The header carrying the signature (HMAC_SHA256, MD5 in a header, STANDARD_WEBHOOKS); its value is never recorded',
    }),
    signature_field: z
      .string()
      .nullable()
      .meta({ description: 'MD5 in a body field: the top-level field carrying the digest, added to the body after signing' }),
    credential_header: z.string().nullable().meta({
      description: 'The header carrying a credential to compare with yours (an API key, a bearer token or JWT, Basic credentials)',
    }),
  })
  .meta({
    id: 'Verification',
    description:
      "How to verify this delivery's callbacks, from your outbound auth as configured now (an attempt sent under an earlier configuration may differ)",
  });
