import { randomUUID } from 'node:crypto';
import type avro from 'avsc';
import { DETAIL_MAP_BRANCH, policyStatusEventType } from './avro-form';
import { AvroFormWalk } from './avro-form-walk';
import { parseIsoDateTime, utcMillis } from './iso-date-time';
import { isPlainObject, ownValue } from './json-values';
import { PolicyEventError } from './policy-event-error';
import type { PolicyNotificationValue, PolicyStatusEventValue } from './policy-event-value';

/**
 * A policy-status event as an integrator writes it (`hookstream policy publish`), checked and
 * turned into the value to Avro-encode: the envelope here, the `policy` by {@link AvroFormWalk},
 * and Avro's own check last.
 */

export interface ParsePolicyEventOptions {
  /** Folder of the .avsc files. Default: defaultSchemasDir(). */
  schemasDir?: string;
  /** Clock for a missing occurred_at. Default Date.now. */
  now?: () => number;
  /** Id for a missing event_id. Default crypto.randomUUID. */
  newEventId?: () => string;
}

const ENVELOPE_FIELDS = new Set(['event_id', 'partner_id', 'occurred_at', 'version', 'policy']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const OCCURRED_AT = 'must be epoch milliseconds (an integer ≥ 0) or an ISO 8601 date-time with an offset';

/**
 * Reads a policy-status event as an integrator writes it (envelope plus the 2.1 body in plain
 * JSON, or already in the avsc form) and returns the value to Avro-encode. A missing event_id
 * is a new UUID; a missing occurred_at is now; occurred_at may be epoch millis or ISO 8601.
 * Refuses what Avro would accept silently too: unknown fields (Avro drops them), a status
 * outside the contract's three. Throws {@link PolicyEventError} naming every problem.
 */
export function parsePolicyEventJson(input: unknown, options: ParsePolicyEventOptions = {}): PolicyStatusEventValue {
  const eventType = policyStatusEventType(options.schemasDir);
  const walk = new AvroFormWalk();
  if (!isPlainObject(input)) throw new PolicyEventError([{ field: '(event)', message: 'must be a JSON object' }]);
  for (const key of Object.keys(input)) if (!ENVELOPE_FIELDS.has(key)) walk.refuse(key, 'unknown field');

  const event = ownValue(input, 'event_id');
  let event_id = '';
  if (event === undefined || event === null) event_id = (options.newEventId ?? randomUUID)();
  else if (typeof event === 'string' && UUID.test(event)) event_id = event;
  else walk.refuse('event_id', 'must be a UUID (e.g. 6f1c2b9e-3d4a-4e57-9b8a-2f0d1c7e5a31), or left out for a new one');

  const partner = ownValue(input, 'partner_id');
  if (partner === undefined || partner === null) walk.refuse('partner_id', 'is required');
  else if (typeof partner !== 'string' || partner.trim() === '') walk.refuse('partner_id', 'must be a non-empty string');

  const occurred = ownValue(input, 'occurred_at');
  let occurred_at = 0;
  if (occurred === undefined || occurred === null) occurred_at = (options.now ?? Date.now)();
  else if (typeof occurred === 'number' && Number.isSafeInteger(occurred) && occurred >= 0) occurred_at = occurred;
  else {
    const t = typeof occurred === 'string' ? parseIsoDateTime(occurred) : undefined;
    if (t && t.offsetMinutes !== null) occurred_at = utcMillis(t) - t.offsetMinutes * 60_000;
    else walk.refuse('occurred_at', OCCURRED_AT);
  }

  const version = ownValue(input, 'version');
  if (version === undefined || version === null) walk.refuse('version', 'is required');
  else if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0)
    walk.refuse('version', 'must be an integer ≥ 0 (the per-policy sequence number)');

  const policyInput = ownValue(input, 'policy');
  let policy: Record<string, unknown> | undefined;
  if (policyInput === undefined || policyInput === null) walk.refuse('policy', 'is required');
  else policy = walk.record(eventType.field('policy').type as avro.types.RecordType, policyInput, 'policy');

  if (walk.problems.length > 0) throw new PolicyEventError(walk.problems);
  const value: PolicyStatusEventValue = {
    event_id,
    partner_id: partner as string,
    occurred_at,
    version: version as number,
    policy: policy as unknown as PolicyNotificationValue,
  };
  // What the walk above missed, Avro still refuses (it drops unknown fields, hence the walk).
  const paths: string[] = [];
  if (!eventType.isValid(value, { errorHook: (path) => paths.push(avroPath(path)) })) {
    throw new PolicyEventError(paths.map((field) => ({ field, message: 'does not fit the Avro schema (policy-status-event.avsc)' })));
  }
  return value;
}

/** avsc's error path (`['policy', 'insureds', '1', 'io.hookstream.v1.GadgetDetail', 'price']`) as a field path. */
function avroPath(path: string[]): string {
  return (
    path
      .filter((p) => !p.startsWith('io.hookstream.') && p !== DETAIL_MAP_BRANCH)
      .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
      .join('')
      .replace(/^\./, '') || '(event)'
  );
}
