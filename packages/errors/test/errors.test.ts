import { ErrorCodes } from '../src/codes';
import { HookstreamError, KafkaUnavailableError, SchemaIncompatibleError, hasErrorCode, isRetryable } from '../src/errors';

describe('errors', () => {
  test('each error carries its code, cause and whether a retry may help', () => {
    const cause = new Error('ECONNREFUSED');
    const unavailable = new KafkaUnavailableError('broker down', cause);
    expect(unavailable).toBeInstanceOf(HookstreamError);
    expect(unavailable.code).toBe(ErrorCodes.KAFKA_UNAVAILABLE);
    expect(unavailable.cause).toBe(cause);
    expect(isRetryable(unavailable)).toBe(true);

    const incompatible = new SchemaIncompatibleError('x-value');
    expect(isRetryable(incompatible)).toBe(false);
    expect(hasErrorCode(incompatible, ErrorCodes.SCHEMA_INCOMPATIBLE)).toBe(true);
    expect(hasErrorCode({ code: ErrorCodes.SCHEMA_INCOMPATIBLE }, ErrorCodes.SCHEMA_INCOMPATIBLE)).toBe(true);
    expect(isRetryable(new Error('plain'))).toBe(false);
  });
});
