import { randomUUID } from 'node:crypto';
import avro from 'avsc';
import { defaultSchemasDir, readSchemaFile } from '../avro/schema-files';
import { type POLICY_STATUSES } from '../partners/model';

/**
 * A policy-status event (schemas/policy-status-event.avsc) as an integrator writes it, and its
 * conversion to the value avsc encodes. The `policy` is the contract's outbound body (spec 2.1)
 * in plain JSON; the Avro form differs in three ways (schemas/README.md): the insured `detail`
 * is wrapped in its union branch, open JSON objects are JSON text, and arrays whose item type
 * the contract leaves open are arrays of JSON text.
 */

export type PolicyStatus = (typeof POLICY_STATUSES)[number];

/**
 * Values of the avsc form. An optional field may be left out or null (a decoded record has
 * every field, null when absent); Avro cannot tell the two apart.
 */
export interface PolicyStatusEventValue {
  event_id: string;
  partner_id: string;
  /** Epoch milliseconds, UTC. */
  occurred_at: number;
  /** Per-policy sequence number; higher is newer. */
  version: number;
  policy: PolicyNotificationValue;
}

export interface PolicyNotificationValue {
  policy_number: string;
  partner_transaction_number?: string | null;
  transaction_number?: string | null;
  quotation_number?: string | null;
  product_code?: string | null;
  insurance_number?: string | null;
  status: PolicyStatus;
  start_protection_at?: string | null;
  end_protection_at?: string | null;
  purchased_at?: string | null;
  activated_at?: string | null;
  currency_code?: string | null;
  payer_type?: string | null;
  calculation?: { gwp?: number | null; total_sum_insured?: number | null } | null;
  policy_holder?: { full_name?: string | null; email?: string | null; phone_number?: string | null } | null;
  insureds?: InsuredValue[] | null;
  product?: ProductValue | null;
  documents?: DocumentValue[] | null;
  policies?: SimplifiedPolicyValue[] | null;
}

export interface InsuredValue {
  uuid?: string | null;
  type?: string | null;
  detail?: InsuredDetailValue | null;
  documents?: DocumentValue[] | null;
}

/**
 * The insured detail union as avsc holds it: one key, the branch's name, e.g.
 * `{ 'io.hookstream.v1.GadgetDetail': { price: 12499000 } }`, or `{ map: { venue: '"Ubud"' } }`
 * (each map value the JSON text of one property).
 */
export type InsuredDetailValue = Readonly<Record<string, Record<string, unknown>>>;

export interface DocumentValue {
  type?: string | null;
  filename?: string | null;
  alias?: string | null;
  url?: string | null;
}

export interface ProductValue {
  country?: string | null;
  parent_category?: string | null;
  product_category?: string | null;
  product_summary?: string | null;
  code?: string | null;
  name?: string | null;
  language?: string | null;
  category_name?: string | null;
  insurance_name?: string | null;
  partner_name?: string | null;
  product_code?: string | null;
  product_name?: string | null;
  product_description?: string | null;
  product_terms?: string | null;
  product_wording?: string | null;
  claim_description?: string | null;
  timezone?: string | null;
  terms?: string | null;
  riplay_document?: string | null;
  benefits?: BenefitValue[] | null;
}

export interface BenefitValue {
  code?: string | null;
  name?: string | null;
  description?: string | null;
  /** Each term item is the JSON text of one item of the contract's array. */
  term?: { inclusion?: string[] | null; exclusion?: string[] | null } | null;
}

export interface SimplifiedPolicyValue {
  number?: string | null;
  status?: string | null;
  start_protection_at?: string | null;
  end_protection_at?: string | null;
  premium_amount?: number | null;
  documents?: DocumentValue[] | null;
}

/** Name of the union branch of `Insured.detail` for each insured type (schemas/README.md); other types use `map`. */
export const INSURED_DETAIL_BRANCHES: Readonly<Record<string, string>> = {
  USER: 'io.hookstream.v1.PersonDetail',
  USER_LENDER: 'io.hookstream.v1.PersonDetail',
  USER_BORROWER: 'io.hookstream.v1.PersonDetail',
  BENEFICIARY: 'io.hookstream.v1.PersonDetail',
  OWNER: 'io.hookstream.v1.PersonDetail',
  AGENT: 'io.hookstream.v1.AgentDetail',
  GADGET: 'io.hookstream.v1.GadgetDetail',
  VEHICLE: 'io.hookstream.v1.VehicleDetail',
  TRAVEL: 'io.hookstream.v1.TripDetail',
  FLIGHT: 'io.hookstream.v1.TripDetail',
  GOODS: 'io.hookstream.v1.GoodsDetail',
  PET: 'io.hookstream.v1.PetDetail',
  LOAN: 'io.hookstream.v1.LoanDetail',
  SENDER: 'io.hookstream.v1.PartyDetail',
  RECIPIENT: 'io.hookstream.v1.PartyDetail',
  SHIPPING: 'io.hookstream.v1.ShippingDetail',
  PACKAGE: 'io.hookstream.v1.PackageDetail',
};

/** The map branch of the detail union: any other insured type. */
export const DETAIL_MAP_BRANCH = 'map';

/** `Record.field` of the open JSON objects carried as JSON text (schemas/README.md, "Open JSON objects"). */
export const JSON_TEXT_OBJECT_FIELDS: ReadonlySet<string> = new Set([
  'PersonDetail.additional_info',
  'TripDetail.additional_info',
  'GoodsDetail.additional_info',
  'LoanDetail.additional_info',
]);

/** `Record.field` of the arrays whose items are carried as JSON text, one item each. */
export const JSON_TEXT_ARRAY_FIELDS: ReadonlySet<string> = new Set([
  'PetDetail.vaccination',
  'BenefitTerm.inclusion',
  'BenefitTerm.exclusion',
]);

/** `Record.field` of the date-times the contract gives as ISO 8601 (spec 2.1); refused at publishing when they are not. */
const ISO_DATE_TIME_FIELDS: ReadonlySet<string> = new Set([
  'PolicyNotification.start_protection_at',
  'PolicyNotification.end_protection_at',
  'PolicyNotification.purchased_at',
  'PolicyNotification.activated_at',
  'SimplifiedPolicy.start_protection_at',
  'SimplifiedPolicy.end_protection_at',
]);

const typeCache = new Map<string, avro.types.RecordType>();

/** The PolicyStatusEvent Avro type of schemas/policy-status-event.avsc (read once per folder). */
export function policyStatusEventType(schemasDir: string = defaultSchemasDir()): avro.types.RecordType {
  let type = typeCache.get(schemasDir);
  if (!type) {
    type = readSchemaFile(schemasDir, 'policy-status-event.avsc').type as avro.types.RecordType;
    typeCache.set(schemasDir, type);
  }
  return type;
}

/** The PolicyNotification record (the `policy` field): the contract 2.1 body. */
export function policyNotificationType(schemasDir?: string): avro.types.RecordType {
  return policyStatusEventType(schemasDir).field('policy').type as avro.types.RecordType;
}

/** A record's name without its namespace: `io.hookstream.v1.Insured` → `Insured`. */
export function shortName(type: avro.Type): string {
  return (type.name ?? type.typeName).split('.').pop()!;
}

/** The one non-null branch of a `["null", T]` union, or the type itself. */
export function withoutNull(type: avro.Type): avro.Type {
  if (type instanceof avro.types.UnwrappedUnionType) {
    const branches = type.types.filter((t) => t.typeName !== 'null');
    if (branches.length === 1) return branches[0]!;
  }
  return type;
}

/** Sets an own enumerable property, whatever its name (a `__proto__` key from JSON stays data). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** An own property's value, or undefined (never one inherited from Object.prototype). */
export function ownValue(source: object, key: string): unknown {
  return Object.hasOwn(source, key) ? (source as Record<string, unknown>)[key] : undefined;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}

/** A parsed ISO 8601 date or date-time (extended format). */
export interface IsoDateTime {
  year: number;
  month: number;
  day: number;
  /** False for a date alone (`2026-01-08`); the time fields are then 0. */
  hasTime: boolean;
  hour: number;
  minute: number;
  second: number;
  /** Fractional seconds truncated to milliseconds. */
  millisecond: number;
  /** UTC offset in minutes (`Z` is 0); null when the text has none (a date, or a local date-time). */
  offsetMinutes: number | null;
}

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:(Z)|([+-])(\d{2})(?::?(\d{2}))?)?)?$/i;

/**
 * Parses `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM[:SS[.fff]][Z|±HH:MM|±HHMM|±HH]`, checking that the
 * date exists and every part is in range. Undefined for anything else (no week or ordinal
 * dates, no basic format without separators).
 */
export function parseIsoDateTime(text: string): IsoDateTime | undefined {
  const m = ISO_8601.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const hasTime = m[4] !== undefined;
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const millisecond = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  let offsetMinutes: number | null = null;
  if (m[8]) offsetMinutes = 0;
  else if (m[9]) {
    const [oh, om] = [Number(m[10]), Number(m[11] ?? 0)];
    if (oh > 23 || om > 59) return undefined;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  return { year, month, day, hasTime, hour, minute, second, millisecond, offsetMinutes };
}

function daysInMonth(year: number, month: number): number {
  return [31, year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

/** Epoch milliseconds of a wall-clock time read as UTC (years below 100 included). */
export function utcMillis(t: Pick<IsoDateTime, 'year' | 'month' | 'day' | 'hour' | 'minute' | 'second' | 'millisecond'>): number {
  const date = new Date(0);
  date.setUTCFullYear(t.year, t.month - 1, t.day);
  date.setUTCHours(t.hour, t.minute, t.second, t.millisecond);
  return date.getTime();
}

/** One refusal: the field path (`policy.insureds[1].detail.price`) and what is wrong. */
export interface PolicyEventProblem {
  field: string;
  message: string;
}

/** Code of {@link PolicyEventError}, for recognising it across package boundaries. */
export const POLICY_EVENT_INVALID = 'HOOKSTREAM_POLICY_EVENT_INVALID';

/** Thrown by {@link parsePolicyEventJson} when an event is refused; names every problem by field path. Not retryable. */
export class PolicyEventError extends Error {
  readonly code = POLICY_EVENT_INVALID;
  readonly retryable = false;

  constructor(readonly problems: PolicyEventProblem[]) {
    super(`policy event refused:\n${problems.map((p) => `  ${p.field}: ${p.message}`).join('\n')}`);
    this.name = 'PolicyEventError';
  }
}

export interface ParsePolicyEventOptions {
  /** Folder of the .avsc files. Default: {@link defaultSchemasDir}. */
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
  const walk = new Walk();
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

const join = (at: string, key: string) => (at ? `${at}.${key}` : key);

/** Converts plain JSON to the avsc form along the Avro type, collecting every problem. */
class Walk {
  readonly problems: PolicyEventProblem[] = [];

  refuse(field: string, message: string): undefined {
    this.problems.push({ field, message });
    return undefined;
  }

  record(type: avro.types.RecordType, input: unknown, at: string, jsonTextItems?: 'avro' | 'plain'): Record<string, unknown> | undefined {
    if (!isPlainObject(input)) return this.refuse(at, 'must be an object');
    for (const key of Object.keys(input)) if (!type.field(key)) this.refuse(join(at, key), 'unknown field');
    const out: Record<string, unknown> = {};
    const record = shortName(type);
    for (const field of type.fields) {
      const path = join(at, field.name);
      const raw = ownValue(input, field.name);
      if (raw === undefined || raw === null) {
        if (withoutNull(field.type) === field.type) this.refuse(path, 'is required');
        continue;
      }
      const key = `${record}.${field.name}`;
      let value: unknown;
      if (key === 'Insured.detail') value = this.detail(field.type as avro.types.WrappedUnionType, ownValue(input, 'type'), raw, path);
      else if (JSON_TEXT_OBJECT_FIELDS.has(key)) value = this.jsonTextObject(raw, path);
      else if (JSON_TEXT_ARRAY_FIELDS.has(key)) value = this.jsonTextArray(raw, path, jsonTextItems);
      else value = this.value(withoutNull(field.type), raw, path);
      if (ISO_DATE_TIME_FIELDS.has(key) && typeof value === 'string' && !parseIsoDateTime(value))
        this.refuse(path, 'must be an ISO 8601 date-time, e.g. 2026-01-08T00:00:00+07:00');
      if (value !== undefined) setOwn(out, field.name, value);
    }
    return out;
  }

  private value(type: avro.Type, raw: unknown, at: string): unknown {
    switch (type.typeName) {
      case 'record':
        return this.record(type as avro.types.RecordType, raw, at);
      case 'array': {
        if (!Array.isArray(raw)) return this.refuse(at, 'must be an array');
        const items = (type as avro.types.ArrayType).itemsType;
        return raw.map((item, i) =>
          item === null || item === undefined ? this.refuse(`${at}[${i}]`, 'must not be null') : this.value(items, item, `${at}[${i}]`),
        );
      }
      case 'string':
        return typeof raw === 'string' ? raw : this.refuse(at, 'must be a string');
      case 'double':
        return typeof raw === 'number' && Number.isFinite(raw) ? raw : this.refuse(at, 'must be a number');
      case 'boolean':
        return typeof raw === 'boolean' ? raw : this.refuse(at, 'must be true or false');
      case 'enum': {
        const symbols = (type as avro.types.EnumType).symbols;
        return typeof raw === 'string' && symbols.includes(raw) ? raw : this.refuse(at, `must be one of ${symbols.join(', ')}`);
      }
      default:
        return raw; // Avro's own check has the last word
    }
  }

  /**
   * The detail's union branch comes from the insured's type. A detail already wrapped in its
   * branch (the avsc form) must be the type's branch; a plain one is wrapped here.
   */
  private detail(union: avro.types.WrappedUnionType, insuredType: unknown, raw: unknown, at: string): unknown {
    if (!isPlainObject(raw)) return this.refuse(at, 'must be an object');
    const expected = (typeof insuredType === 'string' ? INSURED_DETAIL_BRANCHES[insuredType] : undefined) ?? DETAIL_MAP_BRANCH;
    const branches = new Map(union.types.map((t) => [t.name ?? t.typeName, t]));
    const keys = Object.keys(raw);
    const only = keys.length === 1 ? keys[0]! : undefined;
    const wrapped =
      only !== undefined &&
      ((only !== DETAIL_MAP_BRANCH && branches.has(only)) || (only === DETAIL_MAP_BRANCH && isJsonTextMap(raw[DETAIL_MAP_BRANCH])));
    if (wrapped && only !== expected) {
      const what = typeof insuredType === 'string' ? `type ${insuredType}` : 'no type';
      return this.refuse(
        at,
        `an insured with ${what} takes a ${shortName(branches.get(expected)!)} detail, not ${shortName(branches.get(only)!)}`,
      );
    }
    const inner = wrapped ? raw[only] : raw;
    const form = wrapped ? 'avro' : 'plain';
    const value =
      expected === DETAIL_MAP_BRANCH
        ? this.mapDetail(inner, at, form)
        : this.record(branches.get(expected) as avro.types.RecordType, inner, at, form);
    if (value === undefined) return undefined;
    const out: Record<string, unknown> = {};
    setOwn(out, expected, value);
    return out;
  }

  /** The map branch: each property as JSON text. */
  private mapDetail(inner: unknown, at: string, form: 'avro' | 'plain'): Record<string, string> | undefined {
    if (!isPlainObject(inner)) return this.refuse(at, 'must be an object');
    const out: Record<string, string> = {};
    for (const [key, value] of Object.entries(inner)) {
      if (value === undefined) continue;
      if (form === 'plain') setOwn(out, key, JSON.stringify(value));
      else if (typeof value === 'string' && isJsonText(value)) setOwn(out, key, value);
      else this.refuse(join(at, key), 'must be JSON text (the map branch carries each property as JSON text)');
    }
    return out;
  }

  /** An open JSON object: a plain object becomes its JSON text; JSON text of an object is kept as it is. */
  private jsonTextObject(raw: unknown, at: string): string | undefined {
    if (isPlainObject(raw)) return JSON.stringify(raw);
    if (typeof raw === 'string' && isPlainObject(tryParseJson(raw))) return raw;
    return this.refuse(at, 'must be an object');
  }

  /**
   * An array of open items: items become their JSON text. In an avsc-form detail every item
   * must be JSON text already; in a plain one every item is a value. Elsewhere (product benefit
   * terms) an array of strings that all are JSON text is taken as the avsc form.
   */
  private jsonTextArray(raw: unknown, at: string, form: 'avro' | 'plain' | undefined): string[] | undefined {
    if (!Array.isArray(raw)) return this.refuse(at, 'must be an array');
    const allJsonText = raw.every((item) => typeof item === 'string' && isJsonText(item));
    if (form === 'avro' && !allJsonText) {
      raw.forEach((item, i) => {
        if (typeof item !== 'string' || !isJsonText(item))
          this.refuse(`${at}[${i}]`, 'must be JSON text (the avsc form carries each item as JSON text)');
      });
      return undefined;
    }
    if (form === 'avro' || (form === undefined && allJsonText)) return raw as string[];
    return raw.map((item) => JSON.stringify(item) ?? 'null');
  }
}

function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isJsonText(text: string): boolean {
  return tryParseJson(text) !== undefined;
}

function isJsonTextMap(value: unknown): boolean {
  return isPlainObject(value) && Object.values(value).every((v) => typeof v === 'string' && isJsonText(v));
}
