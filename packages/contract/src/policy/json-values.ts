/**
 * Reading and writing JSON values that come from outside (an integrator's event, a decoded
 * record) safely: a key such as `__proto__` stays data, never a prototype, and nothing is read
 * from Object.prototype. Also the test for JSON text, which the avsc form uses for open values.
 */

/** Sets an own enumerable property, whatever its name (a `__proto__` key from JSON stays data). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** An own property's value, or undefined (never one inherited from Object.prototype). */
export function ownValue(source: object, key: string): unknown {
  return Object.hasOwn(source, key) ? (source as Record<string, unknown>)[key] : undefined;
}

/** A JSON object: not null, an array or a Buffer. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}

/** The value of JSON text, or undefined when it does not parse. */
export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function isJsonText(text: string): boolean {
  return tryParseJson(text) !== undefined;
}
