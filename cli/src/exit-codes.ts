import { ErrorCodes, HookstreamError, hasErrorCode, type ErrorCode } from '@hookstream/errors';

/**
 * Every exit code of the CLI, in one place, so scripts can rely on them (docs/errors.md). main.ts
 * prints a refusal as one line on stderr and exits with its code, never a stack trace; anything
 * else exits FAILED. Errors are recognised by their code (the one list, @hookstream/errors),
 * whichever package raised them.
 */
export const ExitCodes = {
  /** Something failed (a replay with failed letters, a stack that died, any unexpected error). */
  FAILED: 1,
  /** What the operator gave is refused, nothing written (a flag, a file, a setting, a spec, an event). */
  REFUSED: 2,
  /** What the command names does not exist (a partner id, a dead letter). */
  NOT_FOUND: 3,
  /** `hookstream topics`: the cluster's topics differ from the wanted settings. */
  TOPICS_DRIFTED: 3,
  /** `hookstream stack status`: no stack is running. */
  STACK_NOT_RUNNING: 3,
  /** `hookstream stack status`: the stack runs, but a part of it is down. */
  STACK_UNHEALTHY: 4,
  /** Ctrl-C (SIGINT) or SIGTERM, as a shell reports it. */
  INTERRUPTED: 130,
} as const;

const EXIT_CODE_OF_ERROR: ReadonlyMap<ErrorCode, number> = new Map<ErrorCode, number>([
  // A refused input: a flag or file, a setting, a partner spec, an operator, a policy event (every
  // field named), a change the partner's state refuses, a replay refused as asked.
  [ErrorCodes.USAGE_INVALID, ExitCodes.REFUSED],
  [ErrorCodes.CONFIG_INVALID, ExitCodes.REFUSED],
  [ErrorCodes.PARTNER_SPEC_INVALID, ExitCodes.REFUSED],
  [ErrorCodes.OPERATOR_INPUT_INVALID, ExitCodes.REFUSED],
  [ErrorCodes.POLICY_EVENT_INVALID, ExitCodes.REFUSED],
  [ErrorCodes.PARTNER_CHANGE_REFUSED, ExitCodes.REFUSED],
  [ErrorCodes.REPLAY_REFUSED, ExitCodes.REFUSED],
  [ErrorCodes.ENTITY_NOT_FOUND, ExitCodes.NOT_FOUND],
  [ErrorCodes.INTERRUPTED, ExitCodes.INTERRUPTED],
]);

/** The operator's input is refused (a flag, a file, a field): exit 2, nothing written. */
export class InputRefused extends HookstreamError {
  constructor(message: string) {
    super(ErrorCodes.USAGE_INVALID, message);
  }
}

/** The exit code of a refusal, or undefined for any other failure (exit FAILED). */
export function refusalExitCode(error: unknown): number | undefined {
  for (const [code, exitCode] of EXIT_CODE_OF_ERROR) if (hasErrorCode(error, code)) return exitCode;
  return undefined;
}
