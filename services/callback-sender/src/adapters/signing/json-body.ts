import { ErrorCodes } from '@hookstream/errors';
import { CallbackSigningError } from './signing-error';

/** Reading a JSON text as an object and adding a field to it without touching its other bytes. */

type JsonObject = Record<string, unknown>;

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body as a JSON object; SIGNATURE_INPUT_INVALID when it is not one. */
export function parseJsonObject(body: string, why: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (cause) {
    throw new CallbackSigningError(ErrorCodes.SIGNATURE_INPUT_INVALID, `${why}, but the body is not JSON`, { cause });
  }
  if (!isJsonObject(parsed)) {
    throw new CallbackSigningError(ErrorCodes.SIGNATURE_INPUT_INVALID, `${why}, but the body is not a JSON object`);
  }
  return parsed;
}

/**
 * `body` with `"name":"value"` as the last member of its top-level object, inserted before the
 * closing brace so every other byte stays as it was (`{}` gets no comma). `parsed` is the body parsed.
 */
export function appendTopLevelField(body: string, parsed: JsonObject, name: string, value: string): string {
  if (Object.hasOwn(parsed, name)) {
    throw new CallbackSigningError(ErrorCodes.SIGNATURE_INPUT_INVALID, `the body already has a field "${name}", where the signature goes`);
  }
  // JSON.parse accepted the text as an object, so its last character other than JSON whitespace is "}".
  const closingBrace = body.trimEnd().length - 1;
  const separator = Object.keys(parsed).length > 0 ? ',' : '';
  return `${body.slice(0, closingBrace)}${separator}${JSON.stringify(name)}:${JSON.stringify(value)}${body.slice(closingBrace)}`;
}
