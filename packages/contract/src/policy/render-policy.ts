import type avro from 'avsc';
import { DETAIL_MAP_BRANCH, JSON_TEXT_ARRAY_FIELDS, JSON_TEXT_OBJECT_FIELDS, shortName, withoutNull } from './avro-form';
import { CallbackBodyError } from './callback-body-error';
import { ownValue, setOwn } from './json-values';

/**
 * A decoded policy (the avsc form) rendered back into the plain 2.1 JSON a partner receives,
 * field by field along the Avro type, so the order is the record's: the insured detail unwrapped
 * from its union branch, JSON text parsed back into JSON. buildCallbackBody then picks, renames
 * and formats the rendered fields.
 */

/** Stands for a field without a value (null or left out). */
export const ABSENT = Symbol('absent');
export type Rendered = unknown;

export interface Render {
  /** BodyMapping.absent_fields NULL: absent fields of the shape are written as null. */
  nulls: boolean;
}

/** One field of a record, rendered; ABSENT when it has no value. Throws {@link CallbackBodyError}. */
export function renderField(record: avro.types.RecordType, field: avro.types.Field, value: object, at: string, render: Render): Rendered {
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
