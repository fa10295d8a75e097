/**
 * The refusal of a partner spec or of a change to a partner (`hookstream partners ...`): every
 * problem at once, each by its field path; the CLI prints it and exits 2, writing nothing.
 */

/** One refusal: the field path and what is wrong. */
export interface SpecProblem {
  field: string;
  message: string;
}

/** Thrown when a partner spec is refused; lists every problem by field path. */
export class PartnerSpecError extends Error {
  constructor(readonly problems: SpecProblem[]) {
    super(`partner refused:\n${problems.map((p) => `  ${p.field}: ${p.message}`).join('\n')}`);
    this.name = 'PartnerSpecError';
  }
}
