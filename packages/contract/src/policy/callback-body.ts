import type { BodyMapping, FieldRule } from '@hookstream/partners';
import { SIMPLIFIED_POLICIES_FIELDS } from '@hookstream/partners';
import { policyNotificationType } from './avro-form';
import { CallbackBodyError } from './callback-body-error';
import { formatDateTime } from './format-date-time';
import { setOwn, ownValue } from './json-values';
import type { PolicyNotificationValue } from './policy-event-value';
import { ABSENT, renderField, type Render, type Rendered } from './render-policy';

/**
 * The body a partner receives (spec 2.1), built from the decoded `policy` of a policy-status
 * event and the partner's BodyMapping. The order of fields is the contract's (the order of the
 * PolicyNotification record); the output is deterministic, so it can be signed (spec 5.1).
 */

/** Top-level fields of the full body (spec 2.1), in contract order: the fields of PolicyNotification. */
export const POLICY_BODY_FIELD_ORDER = [
  'policy_number',
  'partner_transaction_number',
  'transaction_number',
  'quotation_number',
  'product_code',
  'insurance_number',
  'status',
  'start_protection_at',
  'end_protection_at',
  'purchased_at',
  'activated_at',
  'currency_code',
  'payer_type',
  'calculation',
  'policy_holder',
  'insureds',
  'product',
  'documents',
  'policies',
] as const;

/**
 * The exact JSON text for the partner.
 * - FULL: every 2.1 field in contract order; the insured detail unwrapped from its union branch;
 *   JSON text (additional_info, map-branch properties, vaccination and benefit-term items) parsed
 *   back into JSON. Rules rename and format top-level fields where they stand.
 * - SIMPLIFIED_POLICIES: partner_transaction_number, transaction_number, product_code, policies;
 *   rules as with FULL.
 * - MAPPED: only the rules' fields, in rule order, under their targets; sources may be dotted.
 * Absent fields are left out, or written as null with `absent_fields: 'NULL'`. The MD5
 * signature field is not added here (the signer adds it at send time).
 * Throws {@link CallbackBodyError}.
 */
export function buildCallbackBody(policy: PolicyNotificationValue, mapping: BodyMapping): string {
  const type = policyNotificationType();
  const render: Render = { nulls: mapping.absent_fields === 'NULL' };
  const rendered = new Map<string, Rendered>();
  const topLevel = (name: string): Rendered => {
    if (!rendered.has(name)) rendered.set(name, renderField(type, type.field(name), policy, name, render));
    return rendered.get(name);
  };
  const body: Record<string, unknown> = {};
  const put = (key: string, value: Rendered) => {
    if (value !== ABSENT) setOwn(body, key, value);
    else if (render.nulls) setOwn(body, key, null);
  };

  // Onboarding refuses such mappings (parsePartnerSpec); one that slipped through fails every event alike.
  const fields: readonly string[] = mapping.shape === 'SIMPLIFIED_POLICIES' ? SIMPLIFIED_POLICIES_FIELDS : type.fields.map((f) => f.name);
  mapping.rules.forEach((rule, i) => {
    const source = mapping.shape === 'MAPPED' ? rule.source.split('.')[0]! : rule.source;
    if (!fields.includes(source))
      throw new CallbackBodyError(
        `body_mapping.rules[${i}].source`,
        rule.source,
        `is not a field of the ${mapping.shape} body: fix the mapping`,
      );
  });

  if (mapping.shape === 'MAPPED') {
    for (const rule of mapping.rules) {
      const [head, ...rest] = rule.source.split('.');
      put(rule.target, formatted(lookup(topLevel(head!), rest), rule));
    }
  } else {
    const targets = new Set(mapping.rules.map((r) => r.target));
    for (const name of fields) {
      const rules = mapping.rules.filter((r) => r.source === name);
      // A field another rule writes to gives way to it.
      if (rules.length === 0 && !targets.has(name)) put(name, topLevel(name));
      for (const rule of rules) put(rule.target, formatted(topLevel(name), rule));
    }
  }
  return JSON.stringify(body);
}

/** The value at a dotted path below a rendered top-level field. */
function lookup(value: Rendered, path: string[]): Rendered {
  let at = value;
  for (const key of path) {
    if (typeof at !== 'object' || at === null || Array.isArray(at)) return ABSENT;
    at = ownValue(at, key) ?? ABSENT;
  }
  return at === null ? ABSENT : at;
}

function formatted(value: Rendered, rule: FieldRule): Rendered {
  if (value === ABSENT || !rule.format) return value;
  if (typeof value !== 'string')
    throw new CallbackBodyError(rule.source, value, `is not an ISO 8601 date-time, so it cannot be formatted as ${rule.format}`);
  return formatDateTime(value, rule.format, rule.time_zone, rule.source);
}
