import { randomBytes } from 'node:crypto';

/**
 * Operator tokens: `hso_` + 43 base64url characters (256 random bits), shown once by
 * `hookstream operators create` and stored only as a keyed hash (ApiKeyHasher, the peppers of
 * HOOKSTREAM_API_KEY_PEPPERS), like partners' API keys. Their own prefix lets a secret scanner
 * tell a leaked operator token (which opens every partner's data) from a partner's key.
 */
export const OPERATOR_TOKEN_PREFIX = 'hso_';
const OPERATOR_TOKEN_PATTERN = /^hso_[A-Za-z0-9_-]{43}$/;

export interface NewOperatorToken {
  token: string;
  operatorId: string;
  displayPrefix: string;
}

export function generateOperatorToken(): NewOperatorToken {
  const token = `${OPERATOR_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  return {
    token,
    operatorId: `op_${randomBytes(6).toString('hex')}`,
    displayPrefix: `${token.slice(0, OPERATOR_TOKEN_PREFIX.length + 6)}…`,
  };
}

/** Whether a presented value has the shape of an operator token (a cheap pre-check, not auth). */
export function looksLikeOperatorToken(value: string): boolean {
  return OPERATOR_TOKEN_PATTERN.test(value);
}
