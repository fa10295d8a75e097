import { ErrorCodes, FieldProblemsError, type FieldProblem } from '@hookstream/errors';

/**
 * The refusal of a policy-status event at publishing (`hookstream policy publish`): every
 * problem at once, each by its field path, so an integrator fixes the event in one go.
 */

/** One refusal: the field path (`policy.insureds[1].detail.price`) and what is wrong. */
export type PolicyEventProblem = FieldProblem;

/** Thrown by parsePolicyEventJson when an event is refused; names every problem by field path. Not retryable. */
export class PolicyEventError extends FieldProblemsError {
  declare readonly code: typeof ErrorCodes.POLICY_EVENT_INVALID;

  constructor(problems: PolicyEventProblem[]) {
    super(ErrorCodes.POLICY_EVENT_INVALID, 'policy event refused', problems);
  }
}
