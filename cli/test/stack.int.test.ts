/**
 * `hookstream stack up / status / down / wipe` with a state dir of its own: starts a second
 * real Kafka, registry and PostgreSQL beside the test run's, on other ports.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createKafkaClient } from '@hookstream/kafka';
import { createLogger } from '@hookstream/runtime';
import { listensOn, processesMentioning, runCli } from '../../test/helpers/processes';

describe('hookstream stack', () => {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-stack-test-'));
  const envFile = path.join(stateDir, '..', `${path.basename(stateDir)}.env`);
  // Nothing from the test run's own stack leaks in: `stack up` must start its own, on free
  // ports (never a developer's stack on the usual ones).
  const env = {
    ...process.env,
    HOOKSTREAM_STACK_ENV_FILE: envFile,
    HOOKSTREAM_PORTS: 'random',
    KAFKA_BROKERS: '',
    SCHEMA_REGISTRY_URL: '',
    DATABASE_URL: '',
    OTEL_EXPORTER_OTLP_ENDPOINT: '',
  };
  const cli = (...args: string[]) => runCli([...args, '--state-dir', stateDir], { env, timeoutMs: 240_000 });

  afterAll(async () => {
    await cli('stack', 'down');
    rmSync(stateDir, { recursive: true, force: true });
    rmSync(envFile, { force: true });
  });

  async function createTopic(brokers: string, topic: string) {
    const kafka = createKafkaClient({
      brokers: [brokers],
      clientId: 'stack-test',
      logger: createLogger({ service: 'test', level: 'silent' }),
    });
    const admin = kafka.admin();
    await admin.connect();
    if (topic) await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] });
    const topics = await admin.listTopics();
    await admin.disconnect();
    return topics;
  }

  /** The state database's tables. */
  async function tables(url: string): Promise<string[]> {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ name: string }>("select tablename as name from pg_tables where schemaname = 'public'");
      return rows.map((row) => row.name);
    } finally {
      await client.end();
    }
  }

  test('when started, stopped and started again, then it reuses the cache, keeps its data, and leaves no process behind', async () => {
    const up = await cli('stack', 'up', '--detach');
    expect(up.code).toBe(0);
    expect(up.stdout).toMatch(/KAFKA_BROKERS\s+127\.0\.0\.1:\d+/);
    const saved = readFileSync(envFile, 'utf8');
    expect(saved).toMatch(/^KAFKA_BROKERS=127\.0\.0\.1:\d+$/m);
    expect(saved).toMatch(/^SCHEMA_REGISTRY_URL=http:\/\/127\.0\.0\.1:\d+\/apis\/ccompat\/v7$/m);
    expect(saved).toMatch(/^DATABASE_URL=postgres:\/\/hookstream:hookstream@127\.0\.0\.1:\d+\/hookstream$/m);
    // Its Jaeger: where the services export spans, and the console's link to a trace.
    expect(saved).toMatch(/^OTEL_EXPORTER_OTLP_ENDPOINT=http:\/\/127\.0\.0\.1:\d+$/m);
    expect(saved).toMatch(/^DELIVERY_LOG_TRACE_URL=http:\/\/127\.0\.0\.1:\d+\/trace\/\{trace_id\}$/m);

    const status = await cli('stack', 'status', '--json');
    // With its output: a part found unhealthy says why.
    expect({ code: status.code, stdout: status.stdout }).toMatchObject({ code: 0 });
    const info = JSON.parse(status.stdout);
    expect(info).toMatchObject({
      running: true,
      healthy: true,
      health: { kafka: { ok: true }, registry: { ok: true }, postgres: { ok: true }, jaeger: { ok: true } },
    });
    const pids = Object.values(info.processes as Record<string, number>);
    expect(pids).toHaveLength(4);

    // Data written now must survive a restart: a topic in Kafka, a schema in the registry, a table in PostgreSQL.
    const client = new Client({ connectionString: info.settings.DATABASE_URL as string });
    await client.connect();
    await client.query('create table kept_across_restarts (id text)');
    await client.end();
    await createTopic(info.settings.KAFKA_BROKERS, 'kept-across-restarts');
    const registered = await fetch(`${info.settings.SCHEMA_REGISTRY_URL}/subjects/kept-value/versions`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({ schema: '{"type":"record","name":"Kept","fields":[{"name":"id","type":"string"}]}' }),
    });
    expect(registered.status).toBe(200);

    // `stack exec` without --ephemeral uses the stack running from the state dir, and leaves it running.
    const exec = await runCli(
      [
        'stack',
        'exec',
        '--',
        process.execPath,
        '-e',
        'console.log(process.env.KAFKA_BROKERS, Boolean(process.env.HOOKSTREAM_SECRETS_KEYS), process.env.DATABASE_URL, process.env.OTEL_EXPORTER_OTLP_ENDPOINT)',
      ],
      { env: { ...env, HOOKSTREAM_STATE_DIR: stateDir }, timeoutMs: 60_000 },
    );
    expect(exec.code).toBe(0);
    expect(exec.stderr).toContain(`using the local stack already running from ${stateDir}`);
    expect(exec.stdout.trim()).toBe(`${info.settings.KAFKA_BROKERS} true ${info.settings.DATABASE_URL} ${info.traces.otlpUrl}`);
    for (const pid of pids) expect(() => process.kill(pid, 0)).not.toThrow();

    const down = await cli('stack', 'down');
    expect(down.code).toBe(0);
    expect(down.stdout).toMatch(/stopped jaeger .*registry .*postgres .*kafka/);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
    expect(processesMentioning(stateDir)).toEqual([]);
    expect(await listensOn(info.ports.postgres as number)).toBe(false);
    expect(existsSync(envFile)).toBe(false);

    const again = await cli('stack', 'up', '--detach');
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/Kafka 4\.3\.1 cached, Apicurio 3\.3\.3 cached/);
    const second = JSON.parse((await cli('stack', 'status', '--json')).stdout);
    expect(await createTopic(second.settings.KAFKA_BROKERS, '')).toContain('kept-across-restarts');
    const subjects = (await (await fetch(`${second.settings.SCHEMA_REGISTRY_URL}/subjects`)).json()) as string[];
    expect(subjects).toContain('kept-value');
    expect(await tables(second.settings.DATABASE_URL)).toContain('kept_across_restarts');

    expect((await cli('stack', 'wipe')).code).not.toBe(0); // refuses while running
    expect((await cli('stack', 'down')).code).toBe(0);
    expect(processesMentioning(stateDir)).toEqual([]);
    const status2 = await cli('stack', 'status');
    expect(status2.code).toBe(3);
    expect(status2.stdout).toMatch(/not running/);

    const wipe = await cli('stack', 'wipe');
    expect(wipe.code).toBe(0);
    // PostgreSQL's data directory went with it: the state database (which named the wiped Kafka's records) is empty at the next start.
    expect(wipe.stdout).toContain("PostgreSQL's databases");
    expect(existsSync(stateDir)).toBe(false);
  }, 300_000);
});
