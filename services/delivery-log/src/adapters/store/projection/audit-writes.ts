/*
 * The audit trail as rows: each admin-audit record once, by its id (a record read again changes nothing).
 */
import type { Transaction } from 'kysely';
import type { DeliveryLogTables } from '../tables';
import type { Fact } from '../../../entry/kafka/facts';
import { insertChunked, lastByKey } from './batch-rows';

type Trx = Transaction<DeliveryLogTables>;

export async function writeAuditEntries(trx: Trx, facts: Array<Extract<Fact, { kind: 'audit' }>>): Promise<void> {
  const rows = lastByKey(facts, (f) => f.entry.audit_id).map(({ entry }) => ({
    audit_id: entry.audit_id,
    at: new Date(Number(entry.at)),
    actor_type: entry.actor_type,
    actor_id: entry.actor_id,
    actor_name: entry.actor_name,
    action: entry.action,
    subject_type: entry.subject_type,
    subject_id: entry.subject_id,
    reason: entry.reason,
    detail: entry.detail_json,
  }));
  await insertChunked(rows, (chunk) =>
    trx
      .insertInto('audit_log')
      .values(chunk)
      .onConflict((oc) => oc.column('audit_id').doNothing())
      .execute(),
  );
}
