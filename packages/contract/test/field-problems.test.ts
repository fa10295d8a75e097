import { ErrorCodes, HookstreamError, hasErrorCode, isRetryable } from '@hookstream/errors';
import { PartnerSpecError } from '@hookstream/partners';
import { PolicyEventError } from '../src/policy/policy-event-error';

const problems = [
  { field: 'policy.status', message: 'must be one of POLICY_ISSUING, POLICY_ACTIVE, POLICY_CANCELLED' },
  { field: 'partner_id', message: 'is required' },
];

describe('refusals naming every problem by field path', () => {
  test.each([
    [
      'PolicyEventError',
      (p: typeof problems) => new PolicyEventError(p),
      ErrorCodes.POLICY_EVENT_INVALID,
      'HOOKSTREAM_POLICY_EVENT_INVALID',
      'policy event refused',
    ],
    [
      'PartnerSpecError',
      (p: typeof problems) => new PartnerSpecError(p),
      ErrorCodes.PARTNER_SPEC_INVALID,
      'HOOKSTREAM_PARTNER_SPEC_INVALID',
      'partner refused',
    ],
  ])(
    'when a %s is made, then it is a HookstreamError with its code from the one list, never retryable, one line per problem',
    (name, make, exported, code, heading) => {
      const error = make(problems);
      expect(error).toBeInstanceOf(HookstreamError);
      expect(error).toMatchObject({ name, code, retryable: false, problems, details: { problems } });
      expect(exported).toBe(code);
      expect(Object.values(ErrorCodes)).toContain(code);
      expect(hasErrorCode(error, error.code)).toBe(true);
      expect(isRetryable(error)).toBe(false);
      expect(error.message).toBe(
        `${heading}:\n  policy.status: must be one of POLICY_ISSUING, POLICY_ACTIVE, POLICY_CANCELLED\n  partner_id: is required`,
      );
    },
  );
});
