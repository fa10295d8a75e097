/*
 * What the partner API's self-service routes take and answer (a partner's own endpoints and signing
 * secret): the request's shape here; its values are judged by the onboarding rules and the SSRF
 * guard in the use cases, which name each field at fault the same way.
 */
import { ENDPOINT_LIMITS, POLICY_STATUSES } from '@hookstream/partners';
import { z } from 'zod';
import { EndpointConfiguration, endpointDescription, endpointName, timestamp } from './schemas';

const reason = z
  .string()
  .trim()
  .min(1)
  .max(500)
  .optional()
  .meta({ description: 'Why, for the audit (default: changed from the partner API)' });

const endpointFields = {
  // Bounded here a little above the limit, so that the onboarding rules name the field with their own words.
  name: z
    .string()
    .max(ENDPOINT_LIMITS.nameLength + 100)
    .nullable()
    .meta({ description: `What you call the endpoint, at most ${ENDPOINT_LIMITS.nameLength} characters (trimmed); null or empty: none` }),
  description: z
    .string()
    .max(ENDPOINT_LIMITS.descriptionLength + 100)
    .nullable()
    .meta({
      description: `What the endpoint is for, at most ${ENDPOINT_LIMITS.descriptionLength} characters (trimmed); null or empty: none`,
    }),
  url: z
    .string()
    .max(ENDPOINT_LIMITS.urlLength + 100)
    .meta({
      description: `Absolute http(s) URL, at most ${ENDPOINT_LIMITS.urlLength} characters, without credentials; refused when its host is or resolves to a private, loopback, link-local or metadata address the deployment does not allow (the SSRF guard)`,
    }),
  timeout_ms: z.number().int().meta({ description: 'Total timeout of one attempt, 100-120000 ms (default 10000)' }),
  statuses: z
    .array(z.string().max(50))
    .max(POLICY_STATUSES.length + 5)
    .meta({ description: `Policy statuses this endpoint receives (${POLICY_STATUSES.join(', ')}); empty or absent: all` }),
  disabled: z.boolean().meta({ description: 'A disabled endpoint receives no new callback; those already queued are still sent' }),
};

export const EndpointCreateBody = z
  .strictObject({
    name: endpointFields.name.optional(),
    description: endpointFields.description.optional(),
    url: endpointFields.url,
    timeout_ms: endpointFields.timeout_ms.optional(),
    statuses: endpointFields.statuses.optional(),
    disabled: endpointFields.disabled.optional(),
    reason,
  })
  .meta({ id: 'EndpointCreateRequest' });

export const EndpointUpdateBody = z
  .strictObject({
    name: endpointFields.name.optional(),
    description: endpointFields.description.optional(),
    url: endpointFields.url.optional(),
    timeout_ms: endpointFields.timeout_ms.optional(),
    statuses: endpointFields.statuses.optional(),
    disabled: endpointFields.disabled.optional(),
    reason,
  })
  .meta({ id: 'EndpointUpdateRequest', description: 'The fields given are set; the others are kept' });

export const EndpointDeleteBody = z.strictObject({ reason }).meta({ id: 'EndpointDeleteRequest' });

export const OwnEndpoint = z
  .object({
    endpoint_id: z.string(),
    name: endpointName,
    description: endpointDescription,
    url: z.string(),
    configuration: EndpointConfiguration,
  })
  .meta({ id: 'OwnEndpoint' });

export const OwnEndpointAnswer = z.object({ data: OwnEndpoint }).meta({ id: 'OwnEndpointAnswer' });

/** The overlap a partner may choose for a rotation: long enough to install a secret, short enough that a leaked one dies soon. */
export const SIGNING_SECRET_OVERLAP_HOURS = { min: 1, max: 7 * 24 } as const;

export const SigningSecretRotateBody = z
  .strictObject({
    overlap_hours: z
      .number()
      .min(SIGNING_SECRET_OVERLAP_HOURS.min)
      .max(SIGNING_SECRET_OVERLAP_HOURS.max)
      .optional()
      .meta({
        description:
          `How long the previous secret keeps signing beside the new one (STANDARD_WEBHOOKS), or the new one waits (HMAC_SHA256), ` +
          `in hours, ${SIGNING_SECRET_OVERLAP_HOURS.min}-${SIGNING_SECRET_OVERLAP_HOURS.max} (fractions allowed); ` +
          `absent: the insurer's overlap, 24 hours unless it configured another`,
      }),
    reason,
  })
  .meta({ id: 'SigningSecretRotateRequest' });

export const SigningSecretBody = z.strictObject({ reason }).meta({ id: 'SigningSecretRequest' });

const signingState = {
  method: z.enum(['STANDARD_WEBHOOKS', 'HMAC_SHA256']),
  previous_secret_until: timestamp.nullable().optional().meta({
    description: 'STANDARD_WEBHOOKS: until when callbacks also carry a signature with the previous secret; null: no overlap under way',
  }),
  next_secret_from: timestamp.nullable().optional().meta({
    description: 'HMAC_SHA256: when the new secret starts signing instead of the current one; null: no switch pending',
  }),
};

export const RotatedSigningSecret = z
  .object({
    data: z.object({
      ...signingState,
      secret: z.string().meta({ description: 'The new signing secret, shown only now (whsec_… for Standard Webhooks)' }),
    }),
  })
  .meta({ id: 'RotatedSigningSecretAnswer' });

export const SigningSecretStatus = z
  .object({
    data: z.object({
      method: z.string().nullable().meta({ description: 'How callbacks are authenticated (outbound_auth.method); null: not at all' }),
      rotatable: z.boolean().meta({ description: 'Whether the partner rotates this secret itself (STANDARD_WEBHOOKS, HMAC_SHA256)' }),
      previous_secret_until: signingState.previous_secret_until,
      next_secret_from: signingState.next_secret_from,
      self_service: z.boolean().meta({ description: 'false: the insurer turned the partner’s self-service off' }),
    }),
  })
  .meta({ id: 'SigningSecretStatus' });

export const SigningSecretStateAnswer = z.object({ data: z.object(signingState) }).meta({ id: 'SigningSecretStateAnswer' });
