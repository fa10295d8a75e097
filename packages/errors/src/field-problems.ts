import type { ErrorCode } from './codes';
import { HookstreamError } from './errors';

/**
 * What refusals of an operator's or integrator's input share (a policy-status event, a partner
 * spec): every problem at once, each by its field path, one line each under a heading, which is
 * what the CLI prints. Not retryable: the same input is refused the same way.
 */

/** One problem of an input: the field path (`policy.insureds[1].detail.price`) and what is wrong. */
export interface FieldProblem {
  field: string;
  message: string;
}

/** Base of the errors that refuse an input naming every problem by field path; never retryable. */
export abstract class FieldProblemsError extends HookstreamError {
  constructor(
    code: ErrorCode,
    heading: string,
    readonly problems: FieldProblem[],
  ) {
    super(code, `${heading}:\n${problems.map((p) => `  ${p.field}: ${p.message}`).join('\n')}`, {
      retryable: false,
      details: { problems },
    });
  }
}
