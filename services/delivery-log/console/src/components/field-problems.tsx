/*
 * A refused form's problems shown where they belong: each beside the input that owns it
 * (field-placement.ts), tied to the input by aria-describedby (read with it when it gets the
 * focus); the banner above the form, the one alert announced, says how many there are and lists
 * those no input owns.
 */
import { ApiFailure } from '../api';
import { type FieldProblem, type Placement, placeProblems } from '../field-placement';
import { Failure } from './basics';

const errorId = (field: string) => `error-${field}`;
const says = (field: string) => (p: FieldProblem) => (p.field === field ? p.message : `${p.field}: ${p.message}`);

/** The problems of `failure` (a 400 naming fields) placed among `fields`, the paths of the form's inputs as rendered. */
export function fieldProblemsOf(failure: Error | undefined, fields: readonly string[]): Placement {
  const problems = failure instanceof ApiFailure && failure.status === 400 ? failure.fieldProblems : [];
  return placeProblems(problems, fields);
}

/** What an input and the note beside it need for `placement`. */
export function fieldNotes(placement: Placement) {
  return {
    /** The note beside the input at `field`: its problems, or nothing. */
    problem: (field: string) => {
      const list = placement.byField[field];
      return list ? (
        <span class="field-error" id={errorId(field)}>
          {list.map(says(field)).join('; ')}
        </span>
      ) : null;
    },
    /** The input's attributes that tie it to its note. */
    described: (field: string) => (placement.byField[field] ? { 'aria-invalid': true, 'aria-describedby': errorId(field) } : {}),
  };
}

/** The banner above a refused form: the failure as it is, or for a refusal naming fields, where its problems are. */
export function RefusalBanner({ failure, placement }: { failure: Error | undefined; placement: Placement }) {
  const placed = Object.values(placement.byField).reduce((n, list) => n + list.length, 0);
  const { unplaced } = placement;
  if (!failure || (placed === 0 && unplaced.length === 0)) return <Failure error={failure} />;
  const beside = placed === 1 ? 'one problem is shown beside its field' : `${placed} problems are shown beside their fields`;
  return (
    <div class="failure" role="alert">
      {unplaced.length === 0 ? (
        <p>Refused: {beside}.</p>
      ) : (
        <>
          <p>Refused:</p>
          <ul>
            {unplaced.map((p) => (
              <li key={p.field}>
                {p.field}: {p.message}
              </li>
            ))}
          </ul>
          {placed > 0 && <p>And {beside}.</p>}
        </>
      )}
    </div>
  );
}
