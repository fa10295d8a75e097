import pino from 'pino';
import type { AvroCodec } from '../../src/avro/registry-codec';
import { SpringDltHeaders } from '../../src/retry-tiers/dead-letter-names';
import { TieredDispositionWriter } from '../../src/retry-tiers/disposition-writer';
import { RetryHeaders, originHeaders } from '../../src/retry-tiers/retry-headers';
import { RetryTiers } from '../../src/retry-tiers/retry-tiers';

/** A tier-2 record first read at requests/3@41 that cannot be decoded. */
const tierRecord = {
  topic: 'p.retry-2',
  partition: 0,
  message: {
    key: Buffer.from('policy-1'),
    value: Buffer.from('not avro'),
    offset: '7',
    timestamp: '1000',
    headers: { ...originHeaders({ topic: 'p.requests', partition: 3, offset: '41' }), other: 'kept' },
  },
};

function writer(origin: 'first-read' | 'read') {
  let counted = 0;
  const topics = { deadLetters: 'p.dlq', tiers: new RetryTiers((tier) => `p.retry-${tier}`, 3) };
  const options = { codec: {} as AvroCodec, logger: pino({ level: 'silent' }), metrics: {}, topics, now: () => 0 };
  const written = new TieredDispositionWriter(options, { count: () => void (counted += 1), origin }).undecodable(tierRecord, 'bad bytes');
  return { written, counted };
}

test('when a record cannot be decoded, then it goes to the dead-letter topic as it is, counted, with its headers kept and why', () => {
  const { written, counted } = writer('first-read');
  expect(counted).toBe(1);
  expect(written).toHaveLength(1);
  const [letter] = written;
  expect(letter!.topic).toBe('p.dlq');
  expect(letter!.message.key).toEqual(tierRecord.message.key);
  expect(letter!.message.value).toEqual(tierRecord.message.value);
  expect(letter!.message.headers).toMatchObject({ other: 'kept', [SpringDltHeaders.exceptionFqcn]: 'DECODE_ERROR' });
  expect(letter!.message.headers![SpringDltHeaders.exceptionMessage]).toBe('bad bytes');
});

test('when the writer names where a record was first read, then its dead letter names the topic it was first read from', () => {
  const headers = writer('first-read').written[0]!.message.headers!;
  expect(headers[SpringDltHeaders.originalTopic]).toBe('p.requests');
  expect(headers[RetryHeaders.originalTopic]).toBe('p.requests');
});

test('when the writer names where a record was read, then its dead letter names the tier it was read from', () => {
  const headers = writer('read').written[0]!.message.headers!;
  expect(headers[SpringDltHeaders.originalTopic]).toBe('p.retry-2');
  // The headers it came with are kept as they were.
  expect(headers[RetryHeaders.originalTopic]).toBe('p.requests');
});
