import { ApiKeyHasher } from '../../src/api-keys';
import { generateKeyringValue, parseKeyring } from '@hookstream/runtime';
import { createOperator, OperatorInputError, revokeOperator } from '../../src/operators/operator-admin';
import { operatorFromRecord, operatorToRecord } from '../../src/operators/operator';
import { looksLikeOperatorToken } from '../../src/operators/operator-tokens';

const hasher = new ApiKeyHasher(parseKeyring(generateKeyringValue('p1'), 'peppers', 32));

test('an operator is created with a token shown once and kept only as its keyed hash', () => {
  const { operator, token } = createOperator({ name: ' Ada ', role: 'viewer' }, { hasher, createdBy: 'root@host', now: () => 5 });
  expect(looksLikeOperatorToken(token.token)).toBe(true);
  expect(operator).toMatchObject({ operator_id: token.operatorId, name: 'Ada', role: 'viewer', created_at: 5, created_by: 'root@host' });
  expect(operator.token_hash).toBe(hasher.hash(token.token).hash);
  expect(JSON.stringify(operator)).not.toContain(token.token);
  expect(operatorFromRecord(operatorToRecord(operator))).toEqual(operator);
});

test('a name or role that is not one is refused, every problem by field', () => {
  try {
    createOperator({ name: '', role: 'admin' }, { hasher, createdBy: 'x' });
    throw new Error('not refused');
  } catch (error) {
    expect(error).toBeInstanceOf(OperatorInputError);
    expect((error as OperatorInputError).problems.map((p) => p.field)).toEqual(['name', 'role']);
  }
});

test('a revoked operator cannot be revoked again, and a record with a role this version does not know opens nothing', () => {
  const { operator } = createOperator({ name: 'Ada', role: 'operator' }, { hasher, createdBy: 'x' });
  const revoked = revokeOperator(operator, 9);
  expect(revoked.revoked_at).toBe(9);
  expect(() => revokeOperator(revoked)).toThrow(OperatorInputError);
  expect(operatorFromRecord({ ...operatorToRecord(operator), role: 'superuser' })).toBeUndefined();
});
