import type { Logger } from 'pino';
import type { AvroCodec } from '@hookstream/kafka';
import type { Kafka } from '@hookstream/kafka';
import { CompactedView } from '@hookstream/kafka';
import { ApiKeyHasher } from '../api-keys';
import { operatorFromRecord, type Operator } from './operator';
import { looksLikeOperatorToken } from './operator-tokens';

/**
 * Every operator, from the compacted `operators` topic, and who a presented token belongs to.
 * A token is looked up by its keyed hash and compared in constant time, as partners' keys are;
 * a revoked operator's token opens nothing, on every replica within about a second.
 */
export class OperatorDirectory {
  private readonly view: CompactedView<Operator>;
  /** Token hash → operator id, rebuilt per operator on every change. */
  private readonly byHash = new Map<string, string>();
  private readonly hasher: ApiKeyHasher;

  constructor(options: { kafka: Kafka; codec: AvroCodec; topic: string; logger: Logger; hasher: ApiKeyHasher }) {
    this.hasher = options.hasher;
    this.view = new CompactedView({ ...options, parse: operatorFromRecord });
    this.view.onChange((operator, operatorId) => {
      for (const [hash, id] of this.byHash) if (id === operatorId) this.byHash.delete(hash);
      if (operator) this.byHash.set(operator.token_hash, operatorId);
    });
  }

  get ready(): boolean {
    return this.view.ready;
  }

  get(operatorId: string): Operator | undefined {
    return this.view.get(operatorId);
  }

  list(): Operator[] {
    return this.view.all().sort((a, b) => a.created_at - b.created_at || a.operator_id.localeCompare(b.operator_id));
  }

  /** The operator a presented token belongs to, if it is valid now. */
  check(presented: string | undefined): Operator | undefined {
    if (!presented || !looksLikeOperatorToken(presented)) return undefined;
    for (const candidate of this.hasher.candidates(presented)) {
      const operatorId = this.byHash.get(candidate.hash);
      const operator = operatorId === undefined ? undefined : this.view.get(operatorId);
      if (!operator || operator.hash_key_id !== candidate.pepperId || !ApiKeyHasher.same(operator.token_hash, candidate.hash)) continue;
      return operator.revoked_at === null ? operator : undefined;
    }
    return undefined;
  }

  /** The operator once this replica has read a version `accept` takes (after writing one), else undefined after `timeoutMs`. */
  waitFor(operatorId: string, accept: (operator: Operator) => boolean, timeoutMs: number): Promise<Operator | undefined> {
    return this.view.waitFor(operatorId, accept, timeoutMs);
  }

  start(): Promise<void> {
    return this.view.start();
  }

  stop(): Promise<void> {
    return this.view.stop();
  }
}
