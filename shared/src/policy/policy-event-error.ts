/**
 * The refusal of a policy-status event at publishing (`hookstream policy publish`): every
 * problem at once, each by its field path, so an integrator fixes the event in one go.
 */

/** One refusal: the field path (`policy.insureds[1].detail.price`) and what is wrong. */
export interface PolicyEventProblem {
  field: string;
  message: string;
}

/** Code of {@link PolicyEventError}, for recognising it across package boundaries. */
export const POLICY_EVENT_INVALID = 'HOOKSTREAM_POLICY_EVENT_INVALID';

/** Thrown by parsePolicyEventJson when an event is refused; names every problem by field path. Not retryable. */
export class PolicyEventError extends Error {
  readonly code = POLICY_EVENT_INVALID;
  readonly retryable = false;

  constructor(readonly problems: PolicyEventProblem[]) {
    super(`policy event refused:\n${problems.map((p) => `  ${p.field}: ${p.message}`).join('\n')}`);
    this.name = 'PolicyEventError';
  }
}
