import { ErrorCodes, FieldProblemsError, type FieldProblem } from '@hookstream/errors';

/**
 * The refusal of a partner spec or of a change to a partner (`hookstream partners ...`): every
 * problem at once, each by its field path; the CLI prints it and exits 2, writing nothing.
 */

/** One refusal: the field path and what is wrong. */
export type SpecProblem = FieldProblem;

/** Thrown when a partner spec or a change to a partner is refused; lists every problem by field path. Not retryable. */
export class PartnerSpecError extends FieldProblemsError {
  declare readonly code: typeof ErrorCodes.PARTNER_SPEC_INVALID;

  constructor(problems: SpecProblem[]) {
    super(ErrorCodes.PARTNER_SPEC_INVALID, 'partner refused', problems);
  }
}
