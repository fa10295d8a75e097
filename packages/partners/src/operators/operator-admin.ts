import type { ApiKeyHasher } from '../api-keys';
import { ErrorCodes } from '@hookstream/errors';
import { FieldProblemsError, type FieldProblem } from '@hookstream/errors';
import { isOperatorRole, OPERATOR_ROLES, type Operator } from './operator';
import { generateOperatorToken, type NewOperatorToken } from './operator-tokens';

/**
 * The operator use cases: pure functions from the input (and the current record) to the next
 * record, as the partner ones are. `hookstream operators` writes what they return, audited.
 */
/** The refusal of an operator's input, every problem by field (the CLI exits 2, the API answers 400). */
export class OperatorInputError extends FieldProblemsError {
  constructor(problems: FieldProblem[]) {
    super(ErrorCodes.OPERATOR_INPUT_INVALID, 'operator refused', problems);
  }
}

export interface OperatorInput {
  name: unknown;
  role: unknown;
}

export function createOperator(
  input: OperatorInput,
  deps: { hasher: ApiKeyHasher; createdBy: string; now?: () => number },
): { operator: Operator; token: NewOperatorToken } {
  const problems: FieldProblem[] = [];
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (name.length === 0 || name.length > 100) problems.push({ field: 'name', message: 'must be 1-100 characters' });
  if (!isOperatorRole(input.role)) problems.push({ field: 'role', message: `must be one of ${OPERATOR_ROLES.join(', ')}` });
  if (problems.length > 0 || !isOperatorRole(input.role)) throw new OperatorInputError(problems);
  const token = generateOperatorToken();
  const { hash, pepperId } = deps.hasher.hash(token.token);
  return {
    token,
    operator: {
      operator_id: token.operatorId,
      name,
      role: input.role,
      token_hash: hash,
      hash_key_id: pepperId,
      display_prefix: token.displayPrefix,
      created_at: (deps.now ?? Date.now)(),
      created_by: deps.createdBy,
      revoked_at: null,
    },
  };
}

/** The token stops working at once, everywhere (every replica reads the topic); the record stays for the audit. */
export function revokeOperator(current: Operator, now = Date.now()): Operator {
  if (current.revoked_at !== null)
    throw new OperatorInputError([{ field: 'operator_id', message: `${current.operator_id} is already revoked` }]);
  return { ...current, revoked_at: now };
}
