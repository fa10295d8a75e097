import type avro from 'avsc';
import {
  DETAIL_MAP_BRANCH,
  INSURED_DETAIL_BRANCHES,
  JSON_TEXT_ARRAY_FIELDS,
  JSON_TEXT_OBJECT_FIELDS,
  shortName,
  withoutNull,
} from './avro-form';
import { parseIsoDateTime } from './iso-date-time';
import { isJsonText, isPlainObject, ownValue, setOwn, tryParseJson } from './json-values';
import type { PolicyEventProblem } from './policy-event-error';

/**
 * The walk of parsePolicyEventJson over an event's `policy`: plain 2.1 JSON (or JSON already in
 * the avsc form) converted to the avsc form along the Avro type. It collects every problem
 * instead of stopping at the first, and refuses what Avro would accept silently (unknown fields,
 * which Avro drops; a detail in the wrong branch; a date-time that is not ISO 8601).
 */

/** `Record.field` of the date-times the contract gives as ISO 8601 (spec 2.1); refused at publishing when they are not. */
const ISO_DATE_TIME_FIELDS: ReadonlySet<string> = new Set([
  'PolicyNotification.start_protection_at',
  'PolicyNotification.end_protection_at',
  'PolicyNotification.purchased_at',
  'PolicyNotification.activated_at',
  'SimplifiedPolicy.start_protection_at',
  'SimplifiedPolicy.end_protection_at',
]);

const join = (at: string, key: string) => (at ? `${at}.${key}` : key);

/** Converts plain JSON to the avsc form along the Avro type, collecting every problem. */
export class AvroFormWalk {
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

function isJsonTextMap(value: unknown): boolean {
  return isPlainObject(value) && Object.values(value).every((v) => typeof v === 'string' && isJsonText(v));
}
