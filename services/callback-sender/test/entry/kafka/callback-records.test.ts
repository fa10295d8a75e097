import { Registry } from '@hookstream/runtime';
import { RetryTiers, type AvroCodec, type KafkaMessage } from '@hookstream/kafka';
import pino from 'pino';
import type { Disposition } from '../../../src/domain/disposition';
import { DispositionWriter } from '../../../src/adapters/kafka/disposition-writer';
import { CallbackRecords } from '../../../src/entry/kafka/callback-records';
import { createCallbackSenderMetrics } from '../../../src/metrics';

/** CallbackRecords with a codec and use case that answer at once. */
function callbackRecords(sendCallback: () => Promise<Disposition>) {
  const codec = {
    decode: (value: Buffer) => Promise.resolve(JSON.parse(value.toString('utf8')) as unknown),
    encode: () => Promise.resolve(Buffer.from('outcome')),
  } as unknown as AvroCodec;
  const options = {
    codec,
    logger: pino({ level: 'silent' }),
    metrics: createCallbackSenderMetrics(new Registry()),
    topics: {
      requests: 'callback-requests',
      outcomes: 'outcomes',
      deadLetters: 'dlq',
      tiers: new RetryTiers((tier) => `retry-${tier}`, 8),
    },
    now: Date.now,
  };
  return new CallbackRecords({ ...options, sendCallback, writer: new DispositionWriter(options) });
}

function requestRecord(headers: Record<string, string>): KafkaMessage {
  return {
    key: Buffer.from('policy-0'),
    value: Buffer.from(JSON.stringify({ partner_id: 'p', policy_number: 'policy-0', delivery_id: 'd-0' })),
    offset: '0',
    timestamp: '0',
    headers,
  };
}

test.each([
  ['unreadable', 'garbage'],
  ['in the future', String(Date.now() + 86_400_000)],
  ['missing', undefined],
])(
  'a skipped record whose first-failure time is %s starts its wait now, so the deadline for skips applies to it',
  async (_what, firstFailureAt) => {
    const records = callbackRecords(() =>
      Promise.resolve({
        kind: 'retry',
        tier: 2,
        dueAt: Date.now() + 30_000,
        attempts: 1,
        skipped: true,
        skips: 1,
        httpStatus: null,
        errorClass: 'CIRCUIT_OPEN',
        lastError: null,
        latencyMs: null,
        responseExcerpt: null,
        requestHeaders: null,
      }),
    );
    const before = Date.now();
    const written = await records.handle({
      topic: 'callback-requests',
      partition: 0,
      message: requestRecord(firstFailureAt === undefined ? {} : { 'hookstream-first-failure-at': firstFailureAt }),
    });
    // The outcome, then the record for its tier: only the latter carries headers.
    expect(written.map((r) => r.topic)).toEqual(['outcomes', 'retry-2']);
    const stamped = Number(written[1]?.message.headers?.['hookstream-first-failure-at']);
    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(Date.now());
  },
);

test("a delivery dead-lettered because the circuit stayed open keeps its last send's HTTP status and class in its headers (what `dlq list --last-status 500 --error-class HTTP_STATUS` reads)", async () => {
  const records = callbackRecords(() =>
    Promise.resolve({
      kind: 'dead-letter',
      attempts: 3,
      httpStatus: null,
      errorClass: 'CIRCUIT_OPEN',
      reason: "the partner's circuit stayed open for the whole retry schedule (60 s since the first failure); 3 attempts made",
      latencyMs: null,
      responseExcerpt: null,
      requestHeaders: null,
    }),
  );
  // As it comes from a retry tier after a send the partner answered 500 (and skips since, with the circuit open).
  const lastSend = {
    'hookstream-last-http-status': '500',
    'hookstream-last-attempt-error-class': 'HTTP_STATUS',
    'hookstream-attempts': '3',
  };
  const written = await records.handle({ topic: 'retry-4', partition: 0, message: requestRecord(lastSend) });
  const letter = written.find((r) => r.topic === 'dlq');
  const headers = Object.fromEntries(Object.entries(letter?.message.headers ?? {}).map(([k, v]) => [k, String(v)]));
  expect(headers).toMatchObject({
    'kafka_dlt-exception-fqcn': 'CIRCUIT_OPEN',
    'hookstream-last-http-status': '500',
    'hookstream-last-attempt-error-class': 'HTTP_STATUS',
  });
});

test('a tier record is handed over with its tier (it asks whether its delivery was delivered); a first read with none', async () => {
  const reads: unknown[] = [];
  const records = callbackRecords(((_request: unknown, _history: unknown, read: unknown) => {
    reads.push(read);
    return Promise.resolve({ kind: 'already-delivered', attempts: 1 });
  }) as () => Promise<Disposition>);
  await records.handle({ topic: 'retry-1', partition: 0, message: requestRecord({ 'hookstream-last-failure-at': '700' }) });
  await records.handle({ topic: 'retry-4', partition: 0, message: requestRecord({}) });
  const written = await records.handle({ topic: 'callback-requests', partition: 0, message: requestRecord({}) });
  expect(reads).toEqual([{ tier: 1 }, { tier: 4 }, {}]);
  // Not sent: only its outcome is written (ALREADY_DELIVERED), no tier and no dead letter.
  expect(written.map((r) => r.topic)).toEqual(['outcomes']);
});
