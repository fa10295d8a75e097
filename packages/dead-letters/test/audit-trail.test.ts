import { AuditIndex, auditEntryFor, type AuditEntry } from '../src/audit/audit-trail';
import { deadLetter } from './letters';

const run = {
  replayId: 'run-1',
  actor: { type: 'cli' as const, id: 'sre@host', name: 'sre' },
  startedAt: 1,
  reason: 'fixed',
  selectorJson: '{}',
  sourceTopic: 'callback-dlq',
  targetTopic: 'callback-requests',
};

const entry = (overrides: Partial<AuditEntry>): AuditEntry => ({
  ...auditEntryFor(run, { letter: deadLetter(), outcome: 'replayed', detail: '', replayCount: 1 }, 2),
  ...overrides,
});

test('auditEntryFor records who, when, why, the coordinates and the outcome of one decision', () => {
  expect(auditEntryFor(run, { letter: deadLetter(), outcome: 'skipped-superseded', detail: 'newer', replayCount: 0 }, 5)).toEqual({
    replay_id: 'run-1',
    operator: 'sre',
    started_at: 1,
    selector_json: '{}',
    dry_run: false,
    delivery_id: 'delivery-1',
    source_partition: 0,
    source_offset: 10,
    target_topic: 'callback-requests',
    replayed_at: 5,
    replay_count: 0,
    source_topic: 'callback-dlq',
    reason: 'fixed',
    outcome: 'skipped-superseded',
    detail: 'newer',
    actor_type: 'cli',
    actor_id: 'sre@host',
  });
});

describe('AuditIndex', () => {
  test('when a replayed record names the coordinates, then that dead letter is replayed and its delivery counted', () => {
    const index = new AuditIndex();
    index.add(entry({}));
    expect(index.isReplayed(deadLetter())).toBe(true);
    expect(index.isReplayed(deadLetter({ offset: '11' }))).toBe(false);
    expect(index.replaysOf(deadLetter({ offset: '11' }))).toBe(1);
  });

  test('when the records are skips, dry runs or of another topic, then nothing counts as replayed', () => {
    const index = new AuditIndex();
    index.add(entry({ outcome: 'skipped-already-replayed' }));
    index.add(entry({ outcome: 'failed' }));
    index.add(entry({ dry_run: true }));
    index.add(entry({ source_topic: 'policy-status-dlq' }));
    expect(index.isReplayed(deadLetter())).toBe(false);
    expect(index.replaysOf(deadLetter())).toBe(0);
    expect(index.about(deadLetter())).toHaveLength(3);
  });
});
