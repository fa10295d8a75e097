/**
 * `hookstream stack up` heals a stack of which one part died: `stack status` names the part
 * that is down, and `stack up --detach` starts it again on the same ports with the same data.
 * Starts a real Kafka, registry, PostgreSQL and Jaeger of its own, on free ports.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createKafkaClient } from '@hookstream/kafka';
import { createLogger } from '@hookstream/runtime';
import { waitFor } from '../../test/helpers/infrastructure';
import { isolatedStackEnv, runCli } from '../../test/helpers/processes';
import { isStackProcess } from '../src/stack/processes';

interface Status {
  running: boolean;
  healthy: boolean;
  down: string[];
  settings: { KAFKA_BROKERS: string; SCHEMA_REGISTRY_URL: string; DATABASE_URL: string };
  processes: { kafka: number; registry: number; postgres: number; jaeger: number };
  ports: Record<string, number>;
  traces: { otlpUrl: string; uiUrl: string };
  health: { jaeger?: { ok: boolean; detail: string } };
}

type Part = keyof Status['processes'];
/** The port `stack up` names when it starts a part again: Jaeger's UI for Jaeger. */
const portOf = (status: Status, part: Part) => status.ports[part === 'jaeger' ? 'jaegerUi' : part];

describe('hookstream stack up heals', () => {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-heal-test-'));
  const envFile = `${stateDir}.env`;
  const cli = (...args: string[]) => runCli([...args, '--state-dir', stateDir], { env: isolatedStackEnv(envFile), timeoutMs: 240_000 });
  const status = async () => JSON.parse((await cli('stack', 'status', '--json')).stdout) as Status;

  afterAll(async () => {
    await cli('stack', 'down');
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(envFile, { force: true });
  });

  const adminAt = (brokers: string) =>
    createKafkaClient({ brokers: [brokers], clientId: 'heal-test', logger: createLogger({ service: 'test', level: 'silent' }) }).admin();

  async function topicsAt(brokers: string): Promise<string[]> {
    const admin = adminAt(brokers);
    await admin.connect();
    try {
      return await admin.listTopics();
    } finally {
      await admin.disconnect();
    }
  }

  /** Kills `part` with SIGKILL; once it is gone, status names it and exits 4, and up starts it again on the same ports. */
  /** The rows `sql` answers in the state database. */
  async function query(url: string, sql: string): Promise<unknown[]> {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(sql)).rows;
    } finally {
      await client.end();
    }
  }

  async function killAndHeal(part: Part, before: Status): Promise<Status> {
    const pid = before.processes[part];
    process.kill(pid, 'SIGKILL');
    await waitFor(() => !isStackProcess(pid, stateDir), `${part} to be gone`);

    const down = await cli('stack', 'status');
    expect(down.code).toBe(4);
    expect(down.stdout).toContain(`DOWN: ${part} (process ${pid} is dead)`);
    expect(down.stdout).toContain('`hookstream stack up` starts what is down again, on the same ports with the same state');
    expect((await status()).down).toEqual([part]);

    const began = Date.now();
    const up = await cli('stack', 'up', '--detach');
    process.stdout.write(`${part} killed: \`stack up --detach\` had it serving again in ${((Date.now() - began) / 1000).toFixed(1)} s\n`);
    expect(up.code).toBe(0);
    expect(up.stdout).toMatch(
      new RegExp(`${part} of the stack in .* is down; starting it again at 127\\.0\\.0\\.1:${portOf(before, part)}(?!\\d)`),
    );
    expect(up.stdout).not.toContain('already running');

    const after = await status();
    expect(after).toMatchObject({ running: true, healthy: true, down: [], settings: before.settings, ports: before.ports });
    expect(after.processes[part]).not.toBe(pid);
    return after;
  }

  test('when the broker, then the registry, then PostgreSQL, then Jaeger is killed, then status names it and up brings it back on the same ports with its data', async () => {
    expect((await cli('stack', 'up', '--detach')).code).toBe(0);
    const first = await status();
    const admin = adminAt(first.settings.KAFKA_BROKERS);
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'kept-across-heals', numPartitions: 1, replicationFactor: 1 }] });
    await admin.disconnect();
    const schema = await fetch(`${first.settings.SCHEMA_REGISTRY_URL}/subjects/kept-value/versions`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({ schema: '{"type":"record","name":"Kept","fields":[{"name":"id","type":"string"}]}' }),
    });
    expect(schema.status).toBe(200);
    await query(first.settings.DATABASE_URL, "create table kept_across_heals (id text); insert into kept_across_heals values ('kept')");

    const afterKafka = await killAndHeal('kafka', first);
    expect(await topicsAt(afterKafka.settings.KAFKA_BROKERS)).toContain('kept-across-heals');
    expect(afterKafka.processes.registry).toBe(first.processes.registry); // left alone

    const afterRegistry = await killAndHeal('registry', afterKafka);
    expect(await (await fetch(`${afterRegistry.settings.SCHEMA_REGISTRY_URL}/subjects`)).json()).toContain('kept-value');
    expect(afterRegistry.processes.kafka).toBe(afterKafka.processes.kafka);

    const afterPostgres = await killAndHeal('postgres', afterRegistry);
    expect(await query(afterPostgres.settings.DATABASE_URL, 'select id from kept_across_heals')).toEqual([{ id: 'kept' }]);
    expect(afterPostgres.processes.registry).toBe(afterRegistry.processes.registry);

    // Jaeger, the trace store, is a part like the others: on the same ports, so the services' OTLP endpoint holds.
    expect(first.health.jaeger).toMatchObject({ ok: true });
    expect(first.traces).toEqual({
      otlpUrl: `http://127.0.0.1:${first.ports.jaegerOtlp}`,
      uiUrl: `http://127.0.0.1:${first.ports.jaegerUi}`,
    });
    const afterJaeger = await killAndHeal('jaeger', afterPostgres);
    expect(afterJaeger.traces).toEqual(first.traces);
    expect((await fetch(`${afterJaeger.traces.uiUrl}/api/services`)).status).toBe(200);

    // Whole again: up changes nothing, down stops the parts started again too.
    expect((await cli('stack', 'up', '--detach')).stdout).toContain('already running');
    const jaegerPid = afterJaeger.processes.jaeger;
    expect((await cli('stack', 'down')).stdout).toMatch(
      new RegExp(
        `stopped jaeger \\(pid ${jaegerPid}.*registry \\(pid ${afterRegistry.processes.registry}.*postgres \\(pid ${afterPostgres.processes.postgres}.*kafka \\(pid ${afterKafka.processes.kafka}`,
      ),
    );
    expect(isStackProcess(jaegerPid, stateDir)).toBe(false);
  }, 400_000);
});
