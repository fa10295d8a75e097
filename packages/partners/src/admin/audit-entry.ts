import { hostname, userInfo } from 'node:os';
import { randomUUID } from 'node:crypto';

/**
 * Who changed what and why (schemas/admin-audit.avsc): the record every change by an operator, a
 * partner or the CLI carries, written in the change's own Kafka transaction (audited-writer.ts).
 */
export interface Actor {
  /** operator: an operator token; partner: the partner API; cli: a shell with Kafka access. */
  type: 'operator' | 'partner' | 'cli';
  id: string;
  name: string;
}

export interface AuditedChange {
  /** e.g. partner.create, partner.rotate-key, operator.revoke, portal-token.issue, dead-letters.replay. */
  action: string;
  subject: { type: 'partner' | 'operator' | 'dead-letters'; id: string };
  reason: string;
  /** What changed, for the trail (revision, key ids, counts); never a secret or a token. */
  detail?: Record<string, unknown>;
}

export interface AdminAuditEntry {
  audit_id: string;
  at: number;
  actor_type: Actor['type'];
  actor_id: string;
  actor_name: string;
  action: string;
  subject_type: AuditedChange['subject']['type'];
  subject_id: string;
  reason: string;
  detail_json: string;
}

export function auditEntry(actor: Actor, change: AuditedChange, now = Date.now()): AdminAuditEntry {
  return {
    audit_id: randomUUID(),
    at: now,
    actor_type: actor.type,
    actor_id: actor.id,
    actor_name: actor.name,
    action: change.action,
    subject_type: change.subject.type,
    subject_id: change.subject.id,
    reason: change.reason,
    detail_json: JSON.stringify(change.detail ?? {}),
  };
}

/** The CLI's user, as the audit names them: user@host (whoever has a shell next to Kafka). */
export function cliActor(): Actor {
  const id = `${safeUser()}@${hostname()}`;
  return { type: 'cli', id, name: id };
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    // No passwd entry for the uid (some containers).
    return process.env.USER ?? `uid-${process.getuid?.() ?? '?'}`;
  }
}
