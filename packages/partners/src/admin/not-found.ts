import { ErrorCodes, HookstreamError } from '@hookstream/errors';

/** A change names a partner or operator that does not exist: the CLI exits 3, an API answers 404. */
export class NotFoundError extends HookstreamError {
  constructor(
    readonly kind: 'partner' | 'operator' | 'API key',
    readonly id: string,
  ) {
    super(ErrorCodes.ENTITY_NOT_FOUND, `no ${kind} "${id}"`);
  }
}
