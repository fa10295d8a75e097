import type avro from 'avsc';
import type { BodyMapping, FieldFormat, FieldRule } from '../partners/model';
import { SIMPLIFIED_POLICIES_FIELDS } from '../partners/policy-fields';
import {
  DETAIL_MAP_BRANCH,
  JSON_TEXT_ARRAY_FIELDS,
  JSON_TEXT_OBJECT_FIELDS,
  ownValue,
  parseIsoDateTime,
  policyNotificationType,
  setOwn,
  shortName,
  utcMillis,
  withoutNull,
  type IsoDateTime,
  type PolicyNotificationValue,
} from './policy-event';

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

/** Code of {@link CallbackBodyError}, for recognising it across package and process boundaries (DLQ headers). */
export const CALLBACK_BODY_INVALID = 'HOOKSTREAM_CALLBACK_BODY_INVALID';

/**
 * Thrown when a policy cannot be turned into a partner's body: a value a rule formats is not an
 * ISO 8601 date-time, JSON text does not parse, a mapping names what the shape lacks. Not
 * retryable: the same event fails the same way, so it is dead-lettered.
 */
export class CallbackBodyError extends Error {
  readonly code = CALLBACK_BODY_INVALID;
  readonly retryable = false;

  constructor(
    /** Path of the offending field in the 2.1 body, e.g. `start_protection_at`. */
    readonly field: string,
    readonly value: unknown,
    reason: string,
  ) {
    const shown = JSON.stringify(value) ?? String(value);
    super(`${field}: ${shown.length > 200 ? `${shown.slice(0, 200)}…` : shown} ${reason}`);
    this.name = 'CallbackBodyError';
  }
}

/** Stands for a field without a value (null or left out). */
const ABSENT = Symbol('absent');
type Rendered = unknown;

interface Render {
  /** BodyMapping.absent_fields NULL: absent fields of the shape are written as null. */
  nulls: boolean;
}

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

function renderField(record: avro.types.RecordType, field: avro.types.Field, value: object, at: string, render: Render): Rendered {
  if (typeof value !== 'object' || value === null) throw new CallbackBodyError(at, value, `is not a ${shortName(record)} record`);
  const raw = ownValue(value, field.name);
  if (raw === null || raw === undefined) return ABSENT;
  const key = `${shortName(record)}.${field.name}`;
  if (JSON_TEXT_OBJECT_FIELDS.has(key)) return parseJsonText(raw, at);
  if (JSON_TEXT_ARRAY_FIELDS.has(key)) {
    if (!Array.isArray(raw)) throw new CallbackBodyError(at, raw, 'is not an array');
    return raw.map((item, i) => parseJsonText(item, `${at}[${i}]`));
  }
  return renderValue(withoutNull(field.type), raw, at, render);
}

function renderRecord(type: avro.types.RecordType, value: object, at: string, render: Render): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of type.fields) {
    const rendered = renderField(type, field, value, `${at}.${field.name}`, render);
    if (rendered !== ABSENT) setOwn(out, field.name, rendered);
    else if (render.nulls) setOwn(out, field.name, null);
  }
  return out;
}

function renderValue(type: avro.Type, value: unknown, at: string, render: Render): Rendered {
  if (value === null || value === undefined) return ABSENT;
  switch (type.typeName) {
    case 'record':
      if (typeof value !== 'object') throw new CallbackBodyError(at, value, `is not a ${shortName(type)} record`);
      return renderRecord(type as avro.types.RecordType, value, at, render);
    case 'array': {
      if (!Array.isArray(value)) throw new CallbackBodyError(at, value, 'is not an array');
      const items = (type as avro.types.ArrayType).itemsType;
      return value.map((item, i) => {
        const rendered = renderValue(items, item, `${at}[${i}]`, render);
        return rendered === ABSENT ? null : rendered;
      });
    }
    case 'union:wrapped':
      return renderDetail(type as avro.types.WrappedUnionType, value, at, render);
    case 'union:unwrapped':
      return renderValue(withoutNull(type), value, at, render);
    case 'double':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new CallbackBodyError(at, value, 'is not a finite number');
      return value;
    default:
      return value;
  }
}

/** The insured detail, unwrapped from whichever union branch holds it; the map branch's JSON text parsed. */
function renderDetail(union: avro.types.WrappedUnionType, value: unknown, at: string, render: Render): Rendered {
  const [entry, ...more] = Object.entries(value as Record<string, unknown>);
  const branch = entry && more.length === 0 ? union.types.find((t) => (t.name ?? t.typeName) === entry[0]) : undefined;
  if (!entry || !branch) throw new CallbackBodyError(at, value, 'is not a value of the detail union');
  const [name, inner] = entry;
  if (typeof inner !== 'object' || inner === null) throw new CallbackBodyError(at, value, 'is not a value of the detail union');
  if (name !== DETAIL_MAP_BRANCH) return renderRecord(branch as avro.types.RecordType, inner, at, render);
  const out: Record<string, unknown> = {};
  for (const [key, text] of Object.entries(inner as Record<string, unknown>)) setOwn(out, key, parseJsonText(text, `${at}.${key}`));
  return out;
}

function parseJsonText(text: unknown, at: string): unknown {
  if (typeof text !== 'string') throw new CallbackBodyError(at, text, 'is not JSON text');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new CallbackBodyError(at, text, 'is not JSON text');
  }
}

/**
 * Formats an ISO 8601 date or date-time (FieldRule.format):
 * - DATE_ONLY: `YYYY-MM-DD`, the calendar date in the value's own offset as written, or in
 *   `timeZone` when given.
 * - DATE_TIME_UTC: `YYYY-MM-DDTHH:MM:SSZ` (`timeZone` only reads local values).
 * - DATE_TIME_ZONE: `YYYY-MM-DDTHH:MM:SS±HH:MM`, the wall-clock time in `timeZone` and its
 *   offset then; without a zone, the value's own offset.
 * Milliseconds (`.sss`) appear only when the instant has some, so a whole second prints without
 * them; finer digits are dropped. A value without an offset (a date alone, or a local date-time)
 * is wall-clock time in `timeZone`, else in UTC.
 * Throws {@link CallbackBodyError} naming `field` when the value is not ISO 8601 or the zone unknown.
 */
export function formatDateTime(value: string, format: FieldFormat, timeZone: string | null, field = 'value'): string {
  const parsed = parseIsoDateTime(value);
  if (!parsed) throw new CallbackBodyError(field, value, `is not an ISO 8601 date-time, so it cannot be formatted as ${format}`);
  const zone = timeZone ? zoneClock(timeZone, field) : undefined;
  const instant =
    parsed.offsetMinutes !== null ? utcMillis(parsed) - parsed.offsetMinutes * 60_000 : zone ? zone.instantOf(parsed) : utcMillis(parsed);
  switch (format) {
    case 'DATE_ONLY':
      return datePart(zone ? zone.wallClock(instant) : parsed);
    case 'DATE_TIME_UTC':
      return `${datePart(wallClockUtc(instant))}T${timePart(wallClockUtc(instant))}Z`;
    case 'DATE_TIME_ZONE': {
      if (!zone) return `${datePart(parsed)}T${timePart(parsed)}${offsetText(parsed.offsetMinutes ?? 0)}`;
      const wall = zone.wallClock(instant);
      return `${datePart(wall)}T${timePart(wall)}${offsetText((utcMillis(wall) - instant) / 60_000)}`;
    }
  }
}

type WallClock = Pick<IsoDateTime, 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'millisecond'>;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const datePart = (t: WallClock) => `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)}`;
const timePart = (t: WallClock) => `${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}${t.millisecond ? `.${pad(t.millisecond, 3)}` : ''}`;

function offsetText(minutes: number): string {
  const whole = Math.round(minutes);
  const abs = Math.abs(whole);
  return `${whole < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

function wallClockUtc(instant: number): WallClock {
  const d = new Date(instant);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    millisecond: d.getUTCMilliseconds(),
  };
}

interface ZoneClock {
  wallClock(instant: number): WallClock;
  instantOf(wall: WallClock): number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Wall-clock time in an IANA zone through Intl (no date library). */
function zoneClock(timeZone: string, field: string): ZoneClock {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      throw new CallbackBodyError(field, timeZone, 'is not an IANA time zone (the rule’s time_zone)');
    }
    formatters.set(timeZone, formatter);
  }
  const zone = formatter;
  const wallClock = (instant: number): WallClock => {
    const parts = Object.fromEntries(zone.formatToParts(new Date(instant)).map((p) => [p.type, p.value]));
    return {
      year: Number(parts.year),
      month: Number(parts.month),
      day: Number(parts.day),
      hour: Number(parts.hour),
      minute: Number(parts.minute),
      second: Number(parts.second),
      millisecond: ((instant % 1000) + 1000) % 1000,
    };
  };
  const offsetAt = (instant: number) => utcMillis(wallClock(instant)) - instant;
  return {
    wallClock,
    // The offset at the guess, corrected once if the guess fell on the other side of a transition.
    instantOf(wall) {
      const guess = utcMillis(wall);
      const offset = offsetAt(guess);
      const corrected = offsetAt(guess - offset);
      return offset === corrected ? guess - offset : guess - corrected;
    },
  };
}
