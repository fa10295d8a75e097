/**
 * `hookstream dlq` refusing bad input on a real broker: an unknown delivery id, malformed offsets
 * or times, a missing --reason or --yes, a bad --rate or --topic each end with a message naming the
 * flag, exit 2 and nothing written; a record that cannot be decoded is listed as such, exported
 * raw byte for byte, fails its replay (exit 1) and stays where it is.
 */
import { TestFixture } from '../../test/helpers/fixture';
import { dlq, dlqJson, endOffsets, type Listing, type ReplayAnswer } from './dlq-cli';

let fixture: TestFixture;
let watched: string[];
const garbage = Buffer.from('not an avro record at all');

beforeAll(async () => {
  fixture = await TestFixture.open('dlq-input');
  watched = ['callback-requests', 'policy-status', 'dlq-replay-audit', 'callback-dlq'].map((t) => `${fixture.prefix}${t}`);
  const producer = fixture.kafka.producer();
  await producer.connect();
  await producer.send({
    topic: `${fixture.prefix}callback-dlq`,
    messages: [{ partition: 0, key: 'POL-GARBAGE', value: garbage, headers: { 'kafka_dlt-exception-fqcn': 'DECODE_ERROR' } }],
  });
  await producer.disconnect();
}, 120_000);

afterAll(() => fixture?.close());

test.each([
  ['an unknown delivery id', ['replay', '--delivery-id', 'no-such-delivery', '--reason', 'r', '--yes'], '--delivery-id: no dead letter'],
  ['malformed offsets', ['replay', '--offsets', '0:ten-20', '--reason', 'r', '--yes'], '--offsets: "0:ten-20" is not partition:from-to'],
  ['offsets that end before they start', ['list', '--offsets', '0:20-10'], '--offsets: "0:20-10" ends before it starts'],
  ['offsets of a partition the topic lacks', ['replay', '--offsets', '7:1-2', '--reason', 'r', '--yes'], '--offsets:'],
  ['a malformed time', ['replay', '--since', 'yesterday', '--reason', 'r', '--yes'], '--since: "yesterday" is neither an ISO 8601'],
  ['an impossible date', ['list', '--until', '2026-13-45'], '--until: "2026-13-45"'],
  ['--since after --until', ['list', '--since', '1h', '--until', '2h'], '--since'],
  ['a missing --reason', ['replay', '--yes'], '--reason is required'],
  ['no --yes when not on a terminal', ['replay', '--reason', 'r'], '--yes is required when not on a terminal'],
  ['a malformed rate', ['replay', '--rate', 'fast', '--reason', 'r', '--yes'], '--rate: "fast"'],
  ['an unknown topic', ['list', '--topic', 'invoices'], '--topic: "invoices" is not a dead-letter topic'],
  ['a bad HTTP status', ['list', '--last-status', '5xx'], '--last-status: "5xx"'],
  ['an unknown flag', ['replay', '--reason', 'r', '--yes', '--everything'], "unknown option '--everything'"],
])('when given %s, then it names the flag, exits 2 and writes nothing', async (_what, args, message) => {
  const before = await endOffsets(fixture.kafka, watched);
  const result = await dlq(fixture.prefix, args);
  expect(result.stderr).toContain(message);
  expect(result.code).toBe(2);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(await endOffsets(fixture.kafka, watched)).toEqual(before);
});

test('when show is given an id no dead letter has, then it exits 3 saying so', async () => {
  const result = await dlq(fixture.prefix, ['show', 'no-such-delivery']);
  expect(result.code).toBe(3);
  expect(result.stderr).toContain(`no dead letter in ${fixture.prefix}callback-dlq is no-such-delivery`);
});

test('when a dead letter cannot be decoded, then it is listed as such, exported raw byte for byte, fails its replay and stays', async () => {
  const listing = await dlqJson<Listing>(fixture.prefix, ['list', '--undecodable']);
  expect(listing.selected).toBe(1);
  expect(listing.dead_letters[0]).toMatchObject({ partition: 0, offset: '0', policy_number: 'POL-GARBAGE', error_class: 'DECODE_ERROR' });
  expect(listing.dead_letters[0]!.undecodable).toContain('not a Confluent-framed Avro value');
  const text = await dlq(fixture.prefix, ['list']);
  expect(text.stdout).toMatch(/POL-GARBAGE\s+UNDECODABLE\s+-\s+DECODE_ERROR/);

  const exported = await dlq(fixture.prefix, ['export', '--raw', '--undecodable']);
  expect(exported.code).toBe(0);
  const lines = exported.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(lines).toHaveLength(1);
  expect(Buffer.from(lines[0]!.value as string, 'base64').equals(garbage)).toBe(true);
  expect(Buffer.from(lines[0]!.key as string, 'base64').toString()).toBe('POL-GARBAGE');
  expect(Buffer.from((lines[0]!.headers as Record<string, string>)['kafka_dlt-exception-fqcn']!, 'base64').toString()).toBe('DECODE_ERROR');

  const requests = await endOffsets(fixture.kafka, [`${fixture.prefix}callback-requests`]);
  const replay = await dlq(fixture.prefix, ['replay', '--undecodable', '--reason', 'try it', '--yes', '--json']);
  expect(replay.code).toBe(1);
  const answer = JSON.parse(replay.stdout) as ReplayAnswer;
  expect(answer.counts).toMatchObject({ replayed: 0, failed: 1 });
  expect(answer.decisions[0]!.detail).toContain('cannot be decoded');
  expect(await endOffsets(fixture.kafka, [`${fixture.prefix}callback-requests`])).toEqual(requests);
  expect((await dlqJson<Listing>(fixture.prefix, ['list'])).selected).toBe(1);
  const audit = await dlqJson<Array<{ outcome: string }>>(fixture.prefix, ['audit']);
  expect(audit.map((e) => e.outcome)).toEqual(['failed']);
});
