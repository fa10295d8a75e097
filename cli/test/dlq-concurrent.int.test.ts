/**
 * Two `hookstream dlq replay` runs of the same dead letters at once, on a real broker: the second
 * fences the first (one transactional id per dead-letter topic) and reads the audit only then, so
 * every dead letter is re-queued exactly once between them.
 */
import { TestFixture } from '../../test/helpers/fixture';
import { waitFor } from '../../test/helpers/infrastructure';
import { CLI, startNode } from '../../test/helpers/processes';
import { dlqJson, endOffsets, readRequeued, writeCallbackDeadLetters, type ReplayAnswer } from './dlq-cli';

let fixture: TestFixture;

beforeAll(async () => {
  fixture = await TestFixture.open('dlq-race');
}, 120_000);

afterAll(() => fixture?.close());

test('when a second replay starts while the first is still pacing, then the first stops and every dead letter is re-queued exactly once', async () => {
  const count = 12;
  await writeCallbackDeadLetters(fixture.kafka, fixture.prefix, 'race', count);
  const audit = `${fixture.prefix}dlq-replay-audit`;
  const env = { ...process.env, TOPIC_PREFIX: fixture.prefix };
  const slow = startNode([CLI, 'dlq', 'replay', '--reason', 'first', '--rate', '2/s', '--yes'], env);
  // Once the slow run has committed a few replays, the second one starts.
  await waitFor(async () => (await endOffsets(fixture.kafka, [audit]))[audit]! >= 4, 'the first run to replay some', 60_000);
  const fast = await dlqJson<ReplayAnswer>(fixture.prefix, ['replay', '--reason', 'second', '--rate', '1000/s', '--yes']);
  const slowExit = await slow.exited;

  expect(slowExit).toBe(1);
  expect(slow.output()).toContain('took over');
  expect(fast.counts.replayed + fast.counts['skipped-already-replayed']).toBe(count);
  expect(fast.counts['skipped-already-replayed']).toBeGreaterThan(0);
  const requeued = await readRequeued(fixture.kafka, `${fixture.prefix}callback-requests`);
  expect(requeued).toHaveLength(count);
  const entries = await dlqJson<Array<{ outcome: string; source_partition: number; source_offset: number }>>(fixture.prefix, ['audit']);
  const replayed = entries.filter((e) => e.outcome === 'replayed').map((e) => `${e.source_partition}:${e.source_offset}`);
  expect(new Set(replayed).size).toBe(count);
  expect(replayed).toHaveLength(count);
  expect((await dlqJson<{ not_replayed: number }>(fixture.prefix, ['list'])).not_replayed).toBe(0);
}, 180_000);
