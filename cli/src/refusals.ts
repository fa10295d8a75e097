/**
 * The CLI's own failures, each with the exit code a script can rely on. main.ts turns them (and
 * the shared refusals: bad config, a refused partner spec or policy event) into one line on
 * stderr and that exit code, never a stack trace.
 */

/** The operator's input is refused (a flag, a file, a field): exit 2, nothing written. */
export class InputRefused extends Error {
  readonly exitCode = 2;
}

/** What the command names does not exist (a partner id): exit 3. */
export class NotFound extends Error {
  readonly exitCode = 3;
}
