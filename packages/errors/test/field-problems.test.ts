import { ErrorCodes } from '../src/codes';
import { HookstreamError, hasErrorCode, isRetryable } from '../src/errors';
import { PARTNER_SPEC_INVALID, PartnerSpecError } from '@hookstream/partners';
import { POLICY_EVENT_INVALID, PolicyEventError } from '@hookstream/contract';

const problems = [
  { field: 'policy.status', message: 'must be one of POLICY_ISSUING, POLICY_ACTIVE, POLICY_CANCELLED' },
  { field: 'partner_id', message: 'is required' },
];

describe('refusals naming every problem by field path', () => {
  test.each([
    [
      'PolicyEventError',
      (p: typeof problems) => new PolicyEventError(p),
      POLICY_EVENT_INVALID,
      'HOOKSTREAM_POLICY_EVENT_INVALID',
      'policy event refused',
    ],
    [
      'PartnerSpecError',
      (p: typeof problems) => new PartnerSpecError(p),
      PARTNER_SPEC_INVALID,
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
