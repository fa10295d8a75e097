import type { Actor } from '@hookstream/partners';
import { coordinatesOf, type DeadLetter } from '../read/dead-letter';
import type { ReplayDecision } from '../replay/replay-plan';

/**
 * The dlq-replay-audit records (schemas/dlq-replay-audit.avsc), as decoded with today's schema:
 * records written before a field existed carry its default.
 */
export interface AuditEntry {
  replay_id: string;
  operator: string;
  started_at: number;
  selector_json: string;
  dry_run: boolean;
  delivery_id: string;
  source_partition: number;
  source_offset: number;
  target_topic: string;
  replayed_at: number;
  replay_count: number;
  source_topic: string;
  reason: string;
  outcome: string;
  detail: string;
  actor_type: string;
  actor_id: string;
}

/** What is the same for every audit record of one replay run. */
export interface ReplayRun {
  replayId: string;
  /** Who replays; the audit's `operator` is its name. */
  actor: Actor;
  startedAt: number;
  reason: string;
  /** The selection and flags, as JSON text. */
  selectorJson: string;
  /** Logical names: the dead letters' topic and where replays go. */
  sourceTopic: string;
  targetTopic: string;
}

/** The id the audit keeps a dead letter's replays under: its delivery id, else its event id. */
export function auditIdOf(letter: DeadLetter): string {
  return letter.deliveryId ?? letter.eventId ?? '';
}

/** The audit record of one decision of a run. */
export function auditEntryFor(run: ReplayRun, decision: ReplayDecision, now: number): AuditEntry {
  return {
    replay_id: run.replayId,
    operator: run.actor.name,
    started_at: run.startedAt,
    selector_json: run.selectorJson,
    dry_run: false,
    delivery_id: auditIdOf(decision.letter),
    source_partition: decision.letter.partition,
    source_offset: Number(decision.letter.offset),
    target_topic: run.targetTopic,
    replayed_at: now,
    replay_count: decision.replayCount,
    source_topic: run.sourceTopic,
    reason: run.reason,
    outcome: decision.outcome,
    detail: decision.detail,
    actor_type: run.actor.type,
    actor_id: run.actor.id,
  };
}

/**
 * Every audit record, indexed the way replays ask: a dead letter counts as replayed when an
 * audit record with outcome "replayed" (of a real run) names its topic, partition and offset;
 * the replays of a delivery are counted by its id across the coordinates it was dead-lettered at.
 */
export class AuditIndex {
  readonly entries: AuditEntry[] = [];
  private readonly replayedAt = new Set<string>();
  private readonly replaysById = new Map<string, number>();

  add(entry: AuditEntry): void {
    this.entries.push(entry);
    if (entry.outcome !== 'replayed' || entry.dry_run) return;
    this.replayedAt.add(`${entry.source_topic}\n${entry.source_partition}:${entry.source_offset}`);
    if (entry.delivery_id !== '') {
      const id = `${entry.source_topic}\n${entry.delivery_id}`;
      this.replaysById.set(id, (this.replaysById.get(id) ?? 0) + 1);
    }
  }

  /** Whether this very dead letter was replayed. */
  isReplayed(letter: DeadLetter): boolean {
    return this.replayedAt.has(`${letter.source}\n${coordinatesOf(letter)}`);
  }

  /** Replays recorded for the letter's delivery (or event), wherever it was dead-lettered. */
  replaysOf(letter: DeadLetter): number {
    const id = auditIdOf(letter);
    return id === '' ? 0 : (this.replaysById.get(`${letter.source}\n${id}`) ?? 0);
  }

  /** The audit records about this dead letter or its delivery, oldest first. */
  about(letter: DeadLetter): AuditEntry[] {
    const id = auditIdOf(letter);
    return this.entries.filter(
      (e) =>
        e.source_topic === letter.source &&
        ((id !== '' && e.delivery_id === id) || (e.source_partition === letter.partition && String(e.source_offset) === letter.offset)),
    );
  }
}
