/*
 * Where a refused form shows each problem the API named: beside the input that owns its field
 * path, the deepest one whose path contains it (`body.rules[0].target` beside the rules' input,
 * `callback_endpoints[1].endpoint_id` beside its endpoint), or, when no input owns it, in the
 * banner above the form.
 */

/** One problem of a refused input: the field path and what is wrong with it. */
export interface FieldProblem {
  field: string;
  message: string;
}

export interface Placement {
  /** By the path of the input each is shown beside. */
  byField: Record<string, FieldProblem[]>;
  /** Owned by no input of the form: for its banner. */
  unplaced: FieldProblem[];
}

/** Whether the input at `owner` holds `path`: `body.rules` holds `body.rules[0].target` but not `body.rules_extra`. */
export function owns(owner: string, path: string): boolean {
  return path === owner || path.startsWith(`${owner}.`) || path.startsWith(`${owner}[`);
}

/** Each problem beside the deepest of `fields` (the form's inputs' paths) that owns it; the rest unplaced. */
export function placeProblems(problems: readonly FieldProblem[], fields: readonly string[]): Placement {
  const placement: Placement = { byField: {}, unplaced: [] };
  for (const problem of problems) {
    const owner = fields
      .filter((f) => owns(f, problem.field))
      .reduce<string | undefined>((a, b) => (a && a.length >= b.length ? a : b), undefined);
    if (owner === undefined) placement.unplaced.push(problem);
    else (placement.byField[owner] ??= []).push(problem);
  }
  return placement;
}
