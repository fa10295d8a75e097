import { z } from 'zod';
import { POLICY_STATUSES } from './model';
import { outboundAuthSpec } from './outbound-auth-spec';
import { httpUrl, slug, symbol } from './partner-spec-fields';

/**
 * The shape of what an operator writes to onboard or change a partner (`hookstream partners
 * create --file`, or the same built from flags): plaintext secrets, friendly defaults, unknown
 * keys refused. What the shape alone cannot check, parsePartnerSpec checks after it.
 */

/** What one partner may have, whoever writes it (an operator's onboarding, the partner's own endpoint changes). */
export const ENDPOINT_LIMITS = { perPartner: 10, urlLength: 2000, productCodes: 50, nameLength: 80, descriptionLength: 300 } as const;

/** Free text of at most `max` characters, trimmed; empty or null: none (stored as null). */
const label = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .nullable()
    .transform((value) => (value ? value : null));

export const endpointSpec = z
  .object({
    endpoint_id: slug.optional(),
    /** What the partner calls it, shown wherever the endpoint is (the id stands for it when absent). */
    name: label(ENDPOINT_LIMITS.nameLength).default(null),
    description: label(ENDPOINT_LIMITS.descriptionLength).default(null),
    url: httpUrl.max(ENDPOINT_LIMITS.urlLength, `must be at most ${ENDPOINT_LIMITS.urlLength} characters`),
    timeout_ms: z.number().int().min(100, 'must be at least 100 ms').max(120_000, 'must be at most 120000 ms').default(10_000),
    statuses: z.array(z.enum(POLICY_STATUSES)).default([]),
    product_codes: z.array(z.string().trim().min(1).max(100)).max(ENDPOINT_LIMITS.productCodes).default([]),
    ordering: symbol(['LATEST_WINS', 'NONE'] as const).default('LATEST_WINS'),
    /** No new callbacks while true (endpoint-subscription.ts). */
    disabled: z.boolean().default(false),
  })
  .strict();

const ruleSpec = z
  .object({
    source: z.string().min(1),
    target: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a field name of letters, digits and "_"')
      .optional(),
    format: symbol(['DATE_ONLY', 'DATE_TIME_UTC', 'DATE_TIME_ZONE'] as const).optional(),
    time_zone: z.string().optional(),
  })
  .strict();

const bodySpec = z
  .object({
    shape: symbol(['FULL', 'SIMPLIFIED_POLICIES', 'MAPPED'] as const).default('FULL'),
    rules: z.array(ruleSpec).default([]),
    /**
     * omit (default): fields without a value are left out of the body; null: they are sent as
     * null. A YAML or JSON null means null too: that is how `absent_fields: null` reads.
     */
    absent_fields: z.preprocess((v) => (v === null ? 'NULL' : v), symbol(['OMIT', 'NULL'] as const)).default('OMIT'),
  })
  .strict();

export const partnerSpecSchema = z
  .object({
    partner_id: slug.optional(),
    name: z.string().trim().min(1, 'name is required').max(200),
    status: symbol(['ACTIVE', 'DISABLED'] as const).default('ACTIVE'),
    /** Whether the partner may change its endpoints and signing secret itself (the partner API). */
    self_service: z.boolean().default(true),
    callback_endpoints: z
      .array(endpointSpec)
      .max(ENDPOINT_LIMITS.perPartner, `a partner has at most ${ENDPOINT_LIMITS.perPartner} callback endpoints`)
      .default([]),
    outbound_auth: outboundAuthSpec.optional(),
    body: bodySpec.default({ shape: 'FULL', rules: [], absent_fields: 'OMIT' }),
  })
  .strict();

export type PartnerSpec = z.infer<typeof partnerSpecSchema>;
export type PartnerSpecInput = z.input<typeof partnerSpecSchema>;
