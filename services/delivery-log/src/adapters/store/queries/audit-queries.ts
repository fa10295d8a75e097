/*
 * The audit trail: who changed what and why, newest first, filtered by actor, subject or action.
 */
import type { Selectable } from 'kysely';
import type { DeliveryLogDb } from '../tables';
import type { AuditLogTable } from '../tables';
import { pageOf, type Page, type PageCursor } from './page';

export interface AuditFilter {
  actorId?: string;
  subjectId?: string;
  action?: string;
  from?: Date;
  to?: Date;
  cursor?: PageCursor;
  limit: number;
}

export type AuditRecord = Selectable<AuditLogTable>;

export async function listAudit(db: DeliveryLogDb, filter: AuditFilter): Promise<Page<AuditRecord>> {
  let query = db.selectFrom('audit_log').selectAll();
  if (filter.actorId !== undefined) query = query.where('actor_id', '=', filter.actorId);
  if (filter.subjectId !== undefined) query = query.where('subject_id', '=', filter.subjectId);
  if (filter.action !== undefined) query = query.where('action', '=', filter.action);
  if (filter.from !== undefined) query = query.where('at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('at', '<', filter.to);
  const cursor = filter.cursor;
  if (cursor) query = query.where((eb) => eb(eb.refTuple('at', 'audit_id'), '<', eb.tuple(cursor.at, cursor.id)));
  const rows = await query
    .orderBy('at', 'desc')
    .orderBy('audit_id', 'desc')
    .limit(filter.limit + 1)
    .execute();
  return pageOf(rows, filter.limit, (row) => ({ at: row.at, id: row.audit_id }));
}
