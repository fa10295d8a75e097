import { ErrorCodes, HookstreamError } from '@hookstream/errors';

/**
 * A dead-letter command or request names what is not there (an id no dead letter has, an offset
 * beyond the topic): the CLI exits 2, the API answers 409, and nothing is written.
 */
export class ReplayRefused extends HookstreamError {
  constructor(message: string) {
    super(ErrorCodes.REPLAY_REFUSED, message);
  }
}
