import { DeadLetterTally, replayAuditFacts } from '../src/depth/dead-letter-tally';

/** A dlq-replay-audit value as the schema before source_topic, reason and outcome decodes it. */
const oldAudit = (partition: number, offset: number, dryRun = false) => ({
  replay_id: 'r1',
  operator: 'sre',
  dry_run: dryRun,
  delivery_id: 'd1',
  source_partition: partition,
  source_offset: offset,
});

describe('replayAuditFacts', () => {
  test('when the record predates source_topic and outcome, then it is a replay of callback-dlq (the schema’s defaults)', () => {
    expect(replayAuditFacts(oldAudit(2, 40))).toEqual({ sourceTopic: 'callback-dlq', partition: 2, offset: 40, settled: true });
  });

  test('when the record names its source topic and outcome, then those are what it says', () => {
    expect(replayAuditFacts({ ...oldAudit(0, 1), source_topic: 'policy-status-dlq', outcome: 'replayed' })).toMatchObject({
      sourceTopic: 'policy-status-dlq',
      settled: true,
    });
  });

  test.each(['skipped-already-replayed', 'skipped-replay-limit', 'failed'])(
    'when the outcome is %s, then it settles nothing',
    (outcome) => {
      expect(replayAuditFacts({ ...oldAudit(0, 1), outcome }).settled).toBe(false);
    },
  );

  test('when a replay found the dead letter superseded, then it is settled: it must never be sent, so nobody waits on it', () => {
    expect(replayAuditFacts({ ...oldAudit(0, 1), outcome: 'skipped-superseded' }).settled).toBe(true);
  });

  test('when the record is of a dry run, then it never counts, whatever its outcome says', () => {
    expect(replayAuditFacts(oldAudit(0, 1, true)).settled).toBe(false);
    expect(replayAuditFacts({ ...oldAudit(0, 1, true), outcome: 'replayed' }).settled).toBe(false);
    expect(replayAuditFacts({ ...oldAudit(0, 1, true), outcome: 'skipped-superseded' }).settled).toBe(false);
  });
});

describe('DeadLetterTally', () => {
  const replayed = (partition: number, offset: number) => ({ sourceTopic: 'callback-dlq', partition, offset, settled: true });

  test('when dead letters are read, then the depth counts them and all are unreplayed', () => {
    const tally = new DeadLetterTally();
    for (const offset of [0, 2, 4]) tally.add(0, offset); // odd offsets: transaction markers, never read
    tally.add(1, 0);
    expect(tally.depth).toBe(4);
    expect(tally.unreplayed).toBe(4);
  });

  test('when a dead letter is audited as replayed twice (a forced replay), then it is subtracted once', () => {
    const tally = new DeadLetterTally();
    tally.add(0, 0);
    tally.add(0, 1);
    tally.audit(replayed(0, 1));
    tally.audit(replayed(0, 1));
    expect(tally.unreplayed).toBe(1);
  });

  test('when an audit is not a replay, then it changes nothing', () => {
    const tally = new DeadLetterTally();
    tally.add(0, 0);
    tally.audit({ ...replayed(0, 0), settled: false });
    expect(tally.unreplayed).toBe(1);
  });

  test('when a replay is audited before its dead letter is read, then it counts once the dead letter is there', () => {
    const tally = new DeadLetterTally();
    tally.audit(replayed(3, 9));
    expect(tally.unreplayed).toBe(0);
    tally.add(3, 9);
    expect(tally.depth).toBe(1);
    expect(tally.unreplayed).toBe(0);
  });

  test('when retention deletes records below an offset, then they leave the depth, and their replays with them', () => {
    const tally = new DeadLetterTally();
    for (const offset of [0, 1, 2, 3]) tally.add(0, offset);
    tally.add(1, 0);
    tally.audit(replayed(0, 1));
    tally.audit(replayed(0, 3));
    tally.dropBelow(0, 2);
    expect(tally.depth).toBe(3);
    expect(tally.unreplayed).toBe(2); // 0:2 and 1:0; 0:3 was replayed, 0:1 is gone
  });
});
