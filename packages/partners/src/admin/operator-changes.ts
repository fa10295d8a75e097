import { NotFoundError } from '@hookstream/errors';
import { TopicNames } from '@hookstream/kafka';
import type { ApiKeyHasher } from '../api-keys';
import { operatorToRecord, type Operator } from '../operators/operator';
import { createOperator, revokeOperator, type OperatorInput } from '../operators/operator-admin';
import type { OperatorDirectory } from '../operators/operator-directory';
import type { NewOperatorToken } from '../operators/operator-tokens';
import type { Actor } from './audit-entry';
import type { AuditedWriter } from './audited-writer';

const READ_BACK_MS = 5_000;

/** `hookstream operators create | revoke`: validated, written with their audit record, read back. */
export class OperatorChanges {
  constructor(
    private readonly directory: OperatorDirectory,
    private readonly writer: AuditedWriter,
    private readonly hasher: ApiKeyHasher,
  ) {}

  async create(input: OperatorInput, actor: Actor, reason: string): Promise<{ operator: Operator; token: NewOperatorToken }> {
    const { operator, token } = createOperator(input, { hasher: this.hasher, createdBy: actor.name });
    await this.write(operator, actor, 'operator.create', reason, { name: operator.name, role: operator.role });
    return { operator, token };
  }

  async revoke(operatorId: string, actor: Actor, reason: string): Promise<Operator> {
    const current = this.directory.get(operatorId);
    if (!current) throw new NotFoundError('operator', `no operator "${operatorId}"`);
    const next = revokeOperator(current);
    await this.write(next, actor, 'operator.revoke', reason, { name: next.name });
    return next;
  }

  private async write(operator: Operator, actor: Actor, action: string, reason: string, detail: Record<string, unknown>): Promise<void> {
    await this.writer.write([{ topic: TopicNames.operators, key: operator.operator_id, value: operatorToRecord(operator) }], actor, {
      action,
      subject: { type: 'operator', id: operator.operator_id },
      reason,
      detail,
    });
    await this.directory.waitFor(operator.operator_id, (o) => o.revoked_at === operator.revoked_at, READ_BACK_MS);
  }
}
