import { ErrorCodes, HookstreamError, hasErrorCode, type ErrorCode } from '@hookstream/errors';

/**
 * The CLI's exit codes, in one place. main.ts prints a refusal as one line on stderr and exits with
 * its code, never a stack trace; anything else exits 1. Errors are recognised by their code (the
 * one list, @hookstream/errors), whichever package raised them.
 */
const EXIT_CODES: ReadonlyMap<ErrorCode, number> = new Map<ErrorCode, number>([
  // What the operator gave is refused, nothing written: a flag, a file, a setting, a partner spec,
  // an operator, a policy event (every field named), a change the partner's state refuses, a replay.
  [ErrorCodes.USAGE_INVALID, 2],
  [ErrorCodes.CONFIG_INVALID, 2],
  [ErrorCodes.PARTNER_SPEC_INVALID, 2],
  [ErrorCodes.OPERATOR_INPUT_INVALID, 2],
  [ErrorCodes.POLICY_EVENT_INVALID, 2],
  [ErrorCodes.PARTNER_CHANGE_REFUSED, 2],
  // What the command names does not exist (a partner id, a dead letter).
  [ErrorCodes.ENTITY_NOT_FOUND, 3],
  // Ctrl-C or SIGTERM, as a shell reports it.
  [ErrorCodes.INTERRUPTED, 130],
]);

/** The operator's input is refused (a flag, a file, a field): exit 2, nothing written. */
export class InputRefused extends HookstreamError {
  constructor(message: string) {
    super(ErrorCodes.USAGE_INVALID, message);
  }
}

/** The exit code of a refusal, or undefined for any other failure (exit 1). */
export function refusalExitCode(error: unknown): number | undefined {
  for (const [code, exitCode] of EXIT_CODES) if (hasErrorCode(error, code)) return exitCode;
  return undefined;
}
