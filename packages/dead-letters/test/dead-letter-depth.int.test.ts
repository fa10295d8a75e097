import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Message } from '@hookstream/kafka';
import { Registry } from 'prom-client';
import { AvroCodec } from '@hookstream/kafka';
import { DeadLetterDepth, deadLetterGauges, type DeadLetterGauges } from '../src/depth/dead-letter-depth';
import { createLogger } from '@hookstream/runtime';
import { createTopics, testInfrastructure, testKafka, uniqueName, waitFor } from '../../../test/helpers/infrastructure';

/**
 * The DLQ depth gauges against a real broker and registry: a dead-letter topic written partly in
 * transactions (markers take offsets), and dlq-replay-audit records of the schema before and
 * after source_topic and outcome were added.
 */
const kafka = testKafka();
const logger = createLogger({ service: 'test', level: 'silent' });

/** dlq-replay-audit as first published, and evolved with defaults (the agreed contract): both written by this test. */
const AUDIT_FIELDS = [
  { name: 'replay_id', type: 'string' },
  { name: 'operator', type: 'string' },
  { name: 'started_at', type: { type: 'long', logicalType: 'timestamp-millis' } },
  { name: 'selector_json', type: 'string' },
  { name: 'dry_run', type: 'boolean' },
  { name: 'delivery_id', type: 'string' },
  { name: 'source_partition', type: 'int' },
  { name: 'source_offset', type: 'long' },
  { name: 'target_topic', type: 'string' },
  { name: 'replayed_at', type: { type: 'long', logicalType: 'timestamp-millis' } },
  { name: 'replay_count', type: 'int' },
];
const EVOLVED_FIELDS = [
  { name: 'source_topic', type: 'string', default: 'callback-dlq' },
  { name: 'reason', type: 'string', default: '' },
  { name: 'outcome', type: 'string', default: 'replayed' },
];
const schemasDir = mkdtempSync(path.join(tmpdir(), 'audit-schemas-'));
for (const [file, fields] of [
  ['audit-v1.avsc', AUDIT_FIELDS],
  ['audit-v2.avsc', [...AUDIT_FIELDS, ...EVOLVED_FIELDS]],
] as const) {
  writeFileSync(
    path.join(schemasDir, file),
    JSON.stringify({ type: 'record', name: 'DlqReplayAudit', namespace: 'io.hookstream.v1', fields }),
  );
}

function audit(partition: number, offset: number, extra: Record<string, unknown> = {}) {
  const now = Date.now();
  return {
    ...{ replay_id: 'r', operator: 'sre', started_at: now, selector_json: '{}', dry_run: false, delivery_id: `d-${partition}-${offset}` },
    ...{ source_partition: partition, source_offset: offset, target_topic: 'callback-requests', replayed_at: now, replay_count: 1 },
    ...extra,
  };
}

async function send(topic: string, messages: Message[], transaction?: 'commit' | 'abort'): Promise<void> {
  const producer = kafka.producer(transaction ? { transactionalId: uniqueName('dlq-test') } : {});
  await producer.connect();
  try {
    if (!transaction) return void (await producer.send({ topic, messages }));
    const tx = await producer.transaction();
    await tx.send({ topic, messages });
    await (transaction === 'commit' ? tx.commit() : tx.abort());
  } finally {
    await producer.disconnect();
  }
}

async function gauge(g: DeadLetterGauges['records']): Promise<number | undefined> {
  return (await g.get()).values[0]?.value;
}

test('when dead letters and replays are on the topics, then depth counts the records (not offsets) and unreplayed those no real replay of this topic settled (re-queued or found superseded)', async () => {
  const dlq = uniqueName('dlq');
  const auditTopic = uniqueName('audit');
  await createTopics(kafka, [{ topic: dlq, partitions: 2 }, { topic: auditTopic }]);
  // Partition 0: three dead letters each in a transaction of its own (offsets 0, 2, 4; markers 1, 3, 5); partition 1: one, plain.
  for (const i of [0, 1, 2]) await send(dlq, [{ value: `dead-${i}`, partition: 0 }], 'commit');
  await send(dlq, [{ value: 'dead-p1', partition: 1 }]);

  const v1 = new AvroCodec(testInfrastructure().registryUrl, schemasDir);
  await v1.registerTopics([{ topic: auditTopic, schemaFile: 'audit-v1.avsc' }]);
  const v2 = new AvroCodec(testInfrastructure().registryUrl, schemasDir);
  await v2.registerTopics([{ topic: auditTopic, schemaFile: 'audit-v2.avsc' }]);
  const encoded = (codec: AvroCodec, values: unknown[]) =>
    Promise.all(values.map(async (v) => ({ value: await codec.encode(auditTopic, v) })));
  await send(auditTopic, [
    // Before source_topic and outcome: replays of callback-dlq. 0:2 replayed twice (forced) counts once; a dry run never.
    ...(await encoded(v1, [audit(0, 2), audit(0, 2), audit(0, 4, { dry_run: true })])),
    // After: 1:0 replayed; 0:4 skipped as already replayed (settles nothing); 0:0 skipped as superseded (settles it:
    // it must never be sent); 0:4 of the other dead-letter topic replayed.
    ...(await encoded(v2, [
      audit(1, 0, { source_topic: 'callback-dlq', outcome: 'replayed' }),
      audit(0, 4, { outcome: 'skipped-already-replayed' }),
      audit(0, 0, { outcome: 'skipped-superseded' }),
      audit(0, 4, { source_topic: 'policy-status-dlq' }),
    ])),
  ]);

  const gauges = deadLetterGauges(new Registry());
  const depth = new DeadLetterDepth({
    kafka,
    codec: v2,
    logger,
    deadLetters: { topic: dlq, logical: 'callback-dlq' },
    auditTopic,
    gauges,
    refreshMs: 200,
  });
  try {
    await depth.start();
    expect((await gauges.records.get()).values).toEqual([{ labels: { topic: dlq }, value: 4 }]);
    expect(await gauge(gauges.unreplayed)).toBe(1); // 0:4 (0:0 was found superseded)

    // A new dead letter, then its replay: the gauges follow. A replay whose transaction aborted does not count.
    await send(dlq, [{ value: 'dead-p1-late', partition: 1 }]);
    await waitFor(async () => (await gauge(gauges.records)) === 5, 'the new dead letter to count');
    expect(await gauge(gauges.unreplayed)).toBe(2);
    await send(auditTopic, await encoded(v2, [audit(0, 4)]), 'abort');
    await send(auditTopic, await encoded(v2, [audit(1, 1, { source_topic: dlq })]), 'commit');
    await waitFor(async () => (await gauge(gauges.unreplayed)) === 1, 'the replay to count');

    // Retention deletes partition 0 below offset 3: 0:0 and 0:2 no longer count, and 0:2's replay with them.
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopicRecords({ topic: dlq, partitions: [{ partition: 0, offset: '3' }] });
    await admin.disconnect();
    await waitFor(async () => (await gauge(gauges.records)) === 3, 'deleted dead letters to leave the depth');
    expect(await gauge(gauges.unreplayed)).toBe(1); // 0:4
  } finally {
    await depth.stop();
  }
});
