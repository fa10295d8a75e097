/*
 * The audit trail: who changed what and why, newest first, filtered by actor, subject or action.
 * An actor is found by the id it has or by the name the trail shows for it (a partner's own
 * resends are by `partner:<id>`): an operator copies what they see.
 */
import type { Selectable } from 'kysely';
import type { DeliveryLogDb } from '../tables';
import type { AuditLogTable } from '../tables';
import { pageOf, type Page, type PageCursor } from './page';

export interface AuditFilter {
  /** The actor's id (ux-test), or its name as the trail shows it (partner:ux-test), or type:id. */
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
  const actor = filter.actorId;
  if (actor !== undefined) {
    query = query.where((eb) =>
      eb.or([
        eb('actor_id', '=', actor),
        eb('actor_name', '=', actor),
        ...typedActor(actor).map(([type, id]) => eb.and([eb('actor_type', '=', type), eb('actor_id', '=', id)])),
      ]),
    );
  }
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

/** An actor written type:id (partner:ux-test, operator:op-1), as its type and id; none otherwise. */
function typedActor(text: string): Array<[string, string]> {
  const match = /^(operator|partner|cli):(.+)$/.exec(text);
  return match ? [[match[1]!, match[2]!]] : [];
}
