import { CallbackBodyError } from '../../src/policy/callback-body-error';
import { ErrorCodes, HookstreamError, hasErrorCode, isRetryable } from '@hookstream/errors';

describe('CallbackBodyError', () => {
  test('when made, then it is a HookstreamError with code HOOKSTREAM_CALLBACK_BODY_INVALID, never retryable, the field in its details', () => {
    const error = new CallbackBodyError('start_protection_at', '08/01/2026', 'is not an ISO 8601 date-time');
    expect(error).toBeInstanceOf(HookstreamError);
    expect(error).toMatchObject({
      name: 'CallbackBodyError',
      code: 'HOOKSTREAM_CALLBACK_BODY_INVALID',
      retryable: false,
      field: 'start_protection_at',
      value: '08/01/2026',
      details: { field: 'start_protection_at' },
    });
    expect(hasErrorCode(error, ErrorCodes.CALLBACK_BODY_INVALID)).toBe(true);
    expect(isRetryable(error)).toBe(false);
    expect(error.message).toBe('start_protection_at: "08/01/2026" is not an ISO 8601 date-time');
  });

  test('when the value is long, then the message shows its first 200 characters of JSON and an ellipsis; a value without JSON shows as text', () => {
    const long = new CallbackBodyError('documents', 'x'.repeat(300), 'is wrong');
    expect(long.message).toBe(`documents: "${'x'.repeat(199)}… is wrong`);
    expect(new CallbackBodyError('detail', undefined, 'is missing').message).toBe('detail: undefined is missing');
  });
});
