import { ConfigError, ErrorCodes, FieldProblemsError, HookstreamError } from '@hookstream/errors';
import { NotFoundError, PartnerChangeRefused } from '@hookstream/partners';
import { ReplayRefused } from '@hookstream/dead-letters';

/**
 * The CLI's own refusals, each with the exit code a script can rely on. main.ts turns them (and
 * the packages' refusals: bad config, a refused partner spec or policy event) into one line on
 * stderr and that exit code, never a stack trace.
 */

/** The operator's input is refused (a flag, a file, a field): exit 2, nothing written. */
export class InputRefused extends HookstreamError {
  readonly exitCode = 2;

  constructor(message: string) {
    super(ErrorCodes.USAGE_INVALID, message);
  }
}

/** What the command names does not exist (a partner id): exit 3. */
export class NotFound extends HookstreamError {
  readonly exitCode = 3;

  constructor(message: string) {
    super(ErrorCodes.ENTITY_NOT_FOUND, message);
  }
}

/**
 * The exit code of a refusal, or undefined for any other failure (exit 1): the CLI's own, and the
 * packages' ones an operator causes (bad settings, a refused partner spec or policy event), exit 2.
 */
export function refusalExitCode(error: unknown): number | undefined {
  if (error instanceof InputRefused || error instanceof NotFound) return error.exitCode;
  if (error instanceof NotFoundError) return 3;
  // FieldProblemsError: a refused partner spec, operator or policy event, every field named.
  if (
    error instanceof ConfigError ||
    error instanceof FieldProblemsError ||
    error instanceof ReplayRefused ||
    error instanceof PartnerChangeRefused
  )
    return 2;
  return undefined;
}
