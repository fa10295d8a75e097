import { topicCatalogue } from '@hookstream/kafka';
import { testInfrastructure, testKafka, uniqueName } from '../../test/helpers/infrastructure';
import { runCli } from '../../test/helpers/processes';

describe('hookstream topics ensure', () => {
  const prefix = `${uniqueName('topics')}.`;
  const env = { ...process.env, TOPIC_PREFIX: prefix, TOPIC_PARTITIONS: '3' };
  const wanted = topicCatalogue({ prefix, partitions: 3 });

  test('when run on a cluster without the topics, then it creates every one with its settings and registers their schemas', async () => {
    testInfrastructure();
    const result = await runCli(['topics', 'ensure', '--json'], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      drift: boolean;
      topics: Array<{ topic: string; outcome: string; schemaId: number; subject: string }>;
    };
    expect(report.drift).toBe(false);
    expect(report.topics.map((t) => t.topic).sort()).toEqual(wanted.map((t) => t.topic).sort());
    expect(report.topics.every((t) => t.outcome === 'created' && Number.isInteger(t.schemaId) && t.subject === `${t.topic}-value`)).toBe(
      true,
    );
    // The catalogue's topics (with the 8 callback retry tiers), the policy-status DLQ, the replay audit trail,
    // the document-fetcher's 4 retry tiers and DLQ, the ingress's rejections and replays, the operators
    // and the admin audit trail: 9 + 8 + 5 + 2 + 2 (the ingress's request_ids are in PostgreSQL).
    expect(wanted).toHaveLength(26);

    const admin = testKafka().admin();
    await admin.connect();
    const configs = await admin.describeTopicConfigs([`${prefix}partner-config`, `${prefix}callback-retry-8`]);
    const config = (topic: string, name: string) => configs.get(`${prefix}${topic}`)?.get(name);
    expect(config('partner-config', 'cleanup.policy')).toBe('compact');
    expect(config('callback-retry-8', 'cleanup.policy')).toBe('delete');
    const metadata = await admin.fetchTopicMetadata({ topics: [`${prefix}partner-events`, `${prefix}partner-config`] });
    expect(metadata.map((t) => [t.name, t.partitions.length]).sort()).toEqual([
      [`${prefix}partner-config`, 1],
      [`${prefix}partner-events`, 3],
    ]);

    // Safe to run again: nothing changes.
    const again = await runCli(['topics', 'ensure', '--json'], { env });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).topics.every((t: { outcome: string }) => t.outcome === 'unchanged')).toBe(true);

    // Drift: someone changed a retention and the wanted partition count differs.
    await admin.setTopicConfigs(`${prefix}partner-events`, [{ name: 'retention.ms', value: '1000' }]);
    const drifted = await runCli(['topics', 'ensure'], { env: { ...env, TOPIC_PARTITIONS: '4' } });
    expect(drifted.code).toBe(3);
    expect(drifted.stdout).toContain(`drift: ${prefix}partner-events retention.ms: wanted ${7 * 24 * 3600_000}, actual 1000`);
    expect(drifted.stdout).toMatch(
      new RegExp(`drift: ${prefix.replace('.', '\\.')}partner-events partitions: wanted 4, actual 3 \\(not changed automatically`),
    );

    const fixed = await runCli(['topics', 'ensure', '--fix', '--json'], { env });
    expect(fixed.code).toBe(0);
    const events = JSON.parse(fixed.stdout).topics.find((t: { topic: string }) => t.topic === `${prefix}partner-events`);
    expect(events).toMatchObject({ outcome: 'fixed', drift: [{ setting: 'retention.ms', actual: '1000', fixed: true }] });
    expect((await runCli(['topics', 'ensure', '--json'], { env })).code).toBe(0);
    await admin.disconnect();
  }, 120_000);

  test('when the environment has a bad setting, then it exits non-zero naming the variable, and creates nothing', async () => {
    const result = await runCli(['topics', 'ensure'], { env: { ...env, KAFKA_BROKERS: 'no-port-here', TOPIC_PARTITIONS: 'many' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/KAFKA_BROKERS: each broker must be host:port/);
    expect(result.stderr).toMatch(/TOPIC_PARTITIONS: /);
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });
});
