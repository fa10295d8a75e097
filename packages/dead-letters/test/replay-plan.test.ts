import { countOutcomes, planReplay, type ReplayFacts } from '../src/replay/replay-plan';
import { deadLetter } from './letters';

const nothingKnown: ReplayFacts = { alreadyReplayed: () => false, auditedReplays: () => 0, newerVersion: () => undefined };
const rules = { maxReplays: 5, force: false };

describe('planReplay', () => {
  test('when nothing stands against it, then it is replayed with its replay count one more', () => {
    const [decision] = planReplay([deadLetter({ replayCount: 2 })], nothingKnown, rules);
    expect(decision).toMatchObject({ outcome: 'replayed', replayCount: 3, detail: '' });
  });

  test('when a newer version was emitted for its endpoint, then it is skipped as superseded, even with --force', () => {
    const facts = { ...nothingKnown, newerVersion: () => 4 };
    for (const force of [false, true]) {
      const [decision] = planReplay([deadLetter()], facts, { ...rules, force });
      expect(decision).toMatchObject({ outcome: 'skipped-superseded', replayCount: 0 });
      expect(decision!.detail).toContain('(4)');
    }
  });

  test('when it was replayed already, then it is skipped unless --force', () => {
    const facts = { ...nothingKnown, alreadyReplayed: () => true, auditedReplays: () => 1 };
    expect(planReplay([deadLetter()], facts, rules)[0]).toMatchObject({ outcome: 'skipped-already-replayed', replayCount: 1 });
    expect(planReplay([deadLetter()], facts, { ...rules, force: true })[0]).toMatchObject({ outcome: 'replayed', replayCount: 2 });
  });

  test('when its delivery reached DLQ_MAX_REPLAYS, by its header or by the audit, then it is skipped unless --force', () => {
    expect(planReplay([deadLetter({ replayCount: 5 })], nothingKnown, rules)[0]!.outcome).toBe('skipped-replay-limit');
    expect(planReplay([deadLetter()], { ...nothingKnown, auditedReplays: () => 5 }, rules)[0]!.outcome).toBe('skipped-replay-limit');
    expect(planReplay([deadLetter({ replayCount: 4 })], nothingKnown, rules)[0]).toMatchObject({ outcome: 'replayed', replayCount: 5 });
    expect(planReplay([deadLetter({ replayCount: 5 })], nothingKnown, { ...rules, force: true })[0]).toMatchObject({
      outcome: 'replayed',
      replayCount: 6,
    });
  });

  test('when it cannot be re-queued, then it fails with the reason, before anything else is judged', () => {
    const facts = { ...nothingKnown, newerVersion: () => 2, alreadyReplayed: () => true };
    const [decision] = planReplay([deadLetter({ unreplayable: 'it cannot be decoded' })], facts, { ...rules, force: true });
    expect(decision).toMatchObject({ outcome: 'failed', detail: 'it cannot be decoded' });
  });

  test('countOutcomes counts every outcome, zero when absent', () => {
    const decisions = planReplay([deadLetter(), deadLetter({ replayCount: 9 })], nothingKnown, rules);
    expect(countOutcomes(decisions)).toEqual({
      replayed: 1,
      'skipped-superseded': 0,
      'skipped-already-replayed': 0,
      'skipped-replay-limit': 1,
      failed: 0,
    });
  });
});
