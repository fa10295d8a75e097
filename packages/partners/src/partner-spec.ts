import { PartnerSpecError, type SpecProblem } from './partner-spec-error';
import { headerName } from './partner-spec-fields';
import { partnerSpecSchema, type PartnerSpec } from './partner-spec-schema';
import { SIMPLIFIED_POLICIES_FIELDS } from './policy-fields';

/**
 * Validation of an operator's partner spec as a whole: first its shape (partnerSpecSchema), then
 * what only the whole spec can tell (mapping sources against the 2.1 body, MD5 parts against the
 * body the partner will get). Every problem is reported with its field path, all at once.
 */

/** Validates an operator's spec; throws PartnerSpecError naming every problem. */
export function parsePartnerSpec(input: unknown, policyPaths: Set<string>): PartnerSpec {
  const result = partnerSpecSchema.safeParse(input);
  if (!result.success) {
    throw new PartnerSpecError(
      result.error.issues.map((issue) => ({
        field:
          issue.path.length > 0
            ? issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 ? '.' : ''}${String(p)}`)).join('')
            : '(spec)',
        message: issue.code === 'unrecognized_keys' ? `unknown field(s): ${issue.keys.join(', ')}` : issue.message,
      })),
    );
  }
  const problems = crossFieldProblems(result.data, policyPaths);
  if (problems.length > 0) throw new PartnerSpecError(problems);
  return result.data;
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks what the schema alone cannot: mapping sources exist in the 2.1 body, targets are
 * unique, formats have what they need, MD5 parts name fields the body will have, and a
 * partner with callbacks says how they are authenticated.
 */
function crossFieldProblems(spec: PartnerSpec, policyPaths: Set<string>): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const { shape, rules } = spec.body;
  const topLevel =
    shape === 'SIMPLIFIED_POLICIES'
      ? new Set<string>(SIMPLIFIED_POLICIES_FIELDS)
      : new Set([...policyPaths].filter((p) => !p.includes('.')));

  const targets = new Map<string, number>();
  rules.forEach((rule, i) => {
    const at = `body.rules[${i}]`;
    const nestedAllowed = shape === 'MAPPED';
    const known = nestedAllowed ? policyPaths.has(rule.source) : topLevel.has(rule.source);
    if (!known) {
      problems.push({
        field: `${at}.source`,
        message:
          rule.source.includes('.') && policyPaths.has(rule.source)
            ? `"${rule.source}" is nested: only the MAPPED shape can lift nested fields`
            : `"${rule.source}" is not a field of the ${shape === 'SIMPLIFIED_POLICIES' ? 'simplified policies body' : 'policy body (spec 2.1)'}`,
      });
    }
    const target = rule.target ?? rule.source.split('.').pop()!;
    if (targets.has(target))
      problems.push({ field: `${at}.target`, message: `"${target}" is also the target of body.rules[${targets.get(target)}]` });
    targets.set(target, i);
    if (rule.format === 'DATE_TIME_ZONE' && !rule.time_zone)
      problems.push({ field: `${at}.time_zone`, message: 'is required with format DATE_TIME_ZONE' });
    if (rule.time_zone && !isTimeZone(rule.time_zone))
      problems.push({ field: `${at}.time_zone`, message: `"${rule.time_zone}" is not an IANA time zone` });
    if (rule.time_zone && !rule.format) problems.push({ field: `${at}.time_zone`, message: 'needs a format' });
  });
  if (shape === 'MAPPED' && rules.length === 0)
    problems.push({ field: 'body.rules', message: 'the MAPPED shape needs at least one rule (the fields to send)' });

  // Field names of the body the partner receives, for MD5 parts and the signature field.
  const renamedSources = new Set(rules.map((r) => r.source));
  const output =
    shape === 'MAPPED' ? new Set(targets.keys()) : new Set([...[...topLevel].filter((f) => !renamedSources.has(f)), ...targets.keys()]);
  const outputPaths = new Set(output);
  if (shape === 'FULL') for (const p of policyPaths) if (p.includes('.') && output.has(p.split('.')[0]!)) outputPaths.add(p);

  const auth = spec.outbound_auth;
  if (auth?.method === 'MD5') {
    auth.parts.forEach((part, i) => {
      if (part.kind === 'BODY_FIELD' && !outputPaths.has(part.path)) {
        problems.push({
          field: `outbound_auth.parts[${i}].path`,
          message: `"${part.path}" is not a field of the body this partner receives`,
        });
      }
    });
    if (!auth.parts.some((p) => p.kind === 'SECRET'))
      problems.push({ field: 'outbound_auth.parts', message: 'must include the SECRET, or anyone could forge the digest' });
    if (auth.placement === 'BODY_FIELD' && output.has(auth.target))
      problems.push({ field: 'outbound_auth.target', message: `"${auth.target}" is already a field of the body` });
    if (auth.placement === 'HEADER' && !headerName.safeParse(auth.target).success)
      problems.push({ field: 'outbound_auth.target', message: 'must be a valid HTTP header name' });
  }

  if (spec.callback_endpoints.length > 0 && !auth) {
    problems.push({
      field: 'outbound_auth',
      message: 'is required when the partner has callback endpoints (every callback is authenticated, spec 5.1)',
    });
  }
  const ids = spec.callback_endpoints.map((e, i) => e.endpoint_id ?? `ep-${i + 1}`);
  ids.forEach((id, i) => {
    if (ids.indexOf(id) !== i) problems.push({ field: `callback_endpoints[${i}].endpoint_id`, message: `"${id}" is used twice` });
  });
  return problems;
}
