/**
 * Partner onboarding through Kafka: every change is made by a `hookstream partners` process and
 * seen by other processes (a PartnerDirectory in this test process, a running ingress, and
 * further CLI processes), and no secret reaches the topic's bytes or any log in plaintext.
 */
import path from 'node:path';
import { ApiKeyHasher, PartnerDirectory } from '@hookstream/partners';
import { AvroCodec, defaultSchemasDir, type Kafka } from '@hookstream/kafka';
import { createLogger, loadConfig, apiKeyPeppersSetting, sleep } from '@hookstream/runtime';
import { z } from 'zod';
import { createTopics, testInfrastructure, testKafka, uniqueName, waitFor } from '../../test/helpers/infrastructure';
import { REPO_ROOT, runCli, spawnService } from '../../test/helpers/processes';

const OUTBOUND_KEY = 'outbound-key-0123456789';
const OUTBOUND_SECRET = 'hmac-secret-abcdefghij';

describe('hookstream partners', () => {
  const prefix = `${uniqueName('partners')}.`;
  const topic = `${prefix}partner-config`;
  const auditTopic = `${prefix}admin-audit`;
  const env = { ...process.env, TOPIC_PREFIX: prefix };
  let kafka: Kafka;
  let directory: PartnerDirectory;
  let codec: AvroCodec;
  const cliOutput: string[] = [];

  const cli = async (...args: string[]) => {
    const result = await runCli(['partners', ...args], { env });
    cliOutput.push(result.stdout, result.stderr);
    return result;
  };
  const json = async (...args: string[]) => {
    const result = await cli(...args, '--json');
    if (result.code !== 0) throw new Error(`partners ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };
  const endOffset = async () => {
    const admin = kafka.admin();
    await admin.connect();
    const [p] = await admin.fetchTopicOffsets(topic);
    await admin.disconnect();
    return p!.high;
  };

  const readRaw = async (from: string, count: number) => {
    const raw: Buffer[] = [];
    const consumer = kafka.consumer({ groupId: uniqueName('raw'), fromBeginning: true });
    await consumer.connect();
    await consumer.subscribe({ topics: [from] });
    await consumer.run({ eachMessage: async ({ message }) => void raw.push(message.value ?? Buffer.alloc(0)) });
    await waitFor(() => raw.length >= count, `the records of ${from}`);
    await consumer.disconnect();
    return raw;
  };
  const readAll = async (from: string, count: number) =>
    Promise.all((await readRaw(from, count)).map(async (value) => (await codec.decode(value, from)) as Record<string, unknown>));

  beforeAll(async () => {
    const { registryUrl } = testInfrastructure();
    kafka = testKafka();
    await createTopics(kafka, [{ topic, config: { 'cleanup.policy': 'compact' } }, { topic: auditTopic }]);
    codec = new AvroCodec(registryUrl, defaultSchemasDir());
    await codec.registerTopics([
      { topic, schemaFile: 'partner-config.avsc' },
      { topic: auditTopic, schemaFile: 'admin-audit.avsc' },
    ]);
    const peppers = loadConfig(z.object(apiKeyPeppersSetting), process.env).HOOKSTREAM_API_KEY_PEPPERS;
    directory = new PartnerDirectory({
      kafka,
      codec,
      topic,
      logger: createLogger({ service: 'test', level: 'silent' }),
      hasher: new ApiKeyHasher(peppers),
    });
    await directory.start();
  });

  afterAll(async () => {
    await directory.stop();
  });

  test('create, show, update, rotate, revoke, disable, enable: each change is seen by other processes, and no secret is stored or logged', async () => {
    const ingress = await spawnService(path.join(REPO_ROOT, 'services/ingress/dist/main.js'), { ...env, LOG_LEVEL: 'debug' });
    try {
      const created = await json(
        'create',
        '--id',
        'acme',
        '--name',
        'ACME Insurance',
        '--callback-url',
        'https://partner.example/callbacks',
        '--statuses',
        'POLICY_ACTIVE,POLICY_CANCELLED',
        '--auth-method',
        'hmac_sha256',
        '--auth-api-key',
        OUTBOUND_KEY,
        '--auth-secret',
        OUTBOUND_SECRET,
      );
      const firstKey = created.api_key as string;
      const firstKeyId = created.key_id as string;
      expect(created.partner_id).toBe('acme');
      expect(firstKey).toMatch(/^hsk_[A-Za-z0-9_-]{43}$/);

      // Seen by this process's directory, through Kafka.
      await waitFor(() => directory.get('acme')?.revision === 1, 'the directory to see the new partner', 10_000);
      expect(directory.checkApiKey(firstKey)).toMatchObject({ ok: true, partner: { partner_id: 'acme' } });
      expect(directory.checkApiKey(`hsk_${'A'.repeat(43)}`)).toEqual({ ok: false, reason: 'unknown' });

      // Seen by another CLI process, secrets masked.
      const shown = await json('show', 'acme');
      expect(shown).toMatchObject({
        partner_id: 'acme',
        name: 'ACME Insurance',
        status: 'ACTIVE',
        revision: 1,
        callback_endpoints: [
          { url: 'https://partner.example/callbacks', statuses: ['POLICY_ACTIVE', 'POLICY_CANCELLED'], ordering: 'LATEST_WINS' },
        ],
        outbound_auth: { method: 'HMAC_SHA256', api_key: '********', secret: '********' },
      });
      expect(await json('create', '--id', 'acme', '--name', 'Again').catch((e: Error) => e.message)).toMatch(/exists already/);

      await json('update', 'acme', '--name', 'ACME Insurance Ltd', '--callback-url', 'https://partner.example/v2');
      await waitFor(() => directory.get('acme')?.revision === 2, 'the update', 10_000);
      expect(directory.get('acme')).toMatchObject({
        name: 'ACME Insurance Ltd',
        callback_endpoints: [{ url: 'https://partner.example/v2' }],
      });

      const second = await json('add-key', 'acme');
      const secondKey = second.api_key as string;
      await waitFor(() => directory.get('acme')?.revision === 3, 'the new key', 10_000);
      expect(directory.checkApiKey(firstKey).ok).toBe(true);
      expect(directory.checkApiKey(secondKey).ok).toBe(true);

      await json('revoke-key', 'acme', firstKeyId);
      await waitFor(() => directory.get('acme')?.revision === 4, 'the revocation', 10_000);
      expect(directory.checkApiKey(firstKey)).toEqual({ ok: false, reason: 'revoked', partnerId: 'acme' });
      expect(directory.checkApiKey(secondKey).ok).toBe(true);

      await json('disable', 'acme', '--reason', 'contract paused');
      await waitFor(() => directory.get('acme')?.status === 'DISABLED', 'the disable', 10_000);
      expect(directory.checkApiKey(secondKey)).toEqual({ ok: false, reason: 'partner_disabled', partnerId: 'acme' });

      await json('enable', 'acme');
      await waitFor(() => directory.get('acme')?.status === 'ACTIVE', 'the enable', 10_000);
      expect(directory.checkApiKey(secondKey).ok).toBe(true);

      // Rotation: a new key, and the other one expires after the overlap (the same use case as the partner API's).
      const rotated = await json('rotate-key', 'acme', '--overlap-hours', '2');
      await waitFor(() => directory.get('acme')?.revision === 7, 'the rotation', 10_000);
      expect(rotated.retiring).toEqual([{ key_id: second.key_id, expires_at: expect.any(String) }]);
      const overlapMs = Date.parse((rotated.retiring as Array<{ expires_at: string }>)[0]!.expires_at) - Date.now();
      expect(overlapMs).toBeGreaterThan(7_100_000);
      expect(overlapMs).toBeLessThanOrEqual(7_200_000);
      expect(directory.checkApiKey(secondKey).ok).toBe(true);
      expect(directory.checkApiKey(secondKey, Date.now() + 7_200_001)).toEqual({ ok: false, reason: 'expired', partnerId: 'acme' });
      expect(directory.checkApiKey(rotated.api_key as string).ok).toBe(true);

      const listed = await json('list');
      expect(listed).toEqual([expect.objectContaining({ partner_id: 'acme', revision: 7 })]);

      // Every change has its audit record, written in the change's own transaction: who (the CLI's user@host), what, why.
      const audit = await readAll(auditTopic, 7);
      expect(audit.map((a) => a['action'])).toEqual([
        'partner.create',
        'partner.update',
        'partner.add-key',
        'partner.revoke-key',
        'partner.disable',
        'partner.enable',
        'partner.rotate-key',
      ]);
      expect(audit.every((a) => a['actor_type'] === 'cli' && a['subject_id'] === 'acme' && /@/.test(String(a['actor_id'])))).toBe(true);
      expect(audit[4]).toMatchObject({ reason: 'contract paused' });
      expect(audit[0]).toMatchObject({ reason: 'from the CLI' });

      // The ingress process applied every change without a restart, and is ready.
      await waitFor(
        () => (ingress.output().match(/partner-config changed/g)?.length ?? 0) >= 5,
        'the ingress to apply the changes',
        10_000,
      );

      // No plaintext secret in the topic's raw bytes...
      const bytes = Buffer.concat([...(await readRaw(topic, 7)), ...(await readRaw(auditTopic, 7))]).toString('latin1');
      // ...nor in any log or CLI output (the API keys appear only in the one output that issued each).
      const logs = ingress.output();
      const later = cliOutput
        .slice(2)
        .filter((o) => !o.includes(secondKey))
        .join('\n');
      for (const secret of [firstKey, secondKey, rotated.api_key as string, OUTBOUND_KEY, OUTBOUND_SECRET]) {
        expect(bytes).not.toContain(secret);
        expect(logs).not.toContain(secret);
      }
      for (const secret of [firstKey, OUTBOUND_KEY, OUTBOUND_SECRET]) expect(later).not.toContain(secret);

      // The partner's self-service (its own endpoint and signing-secret changes), off and audited; "maybe" is no switch.
      const off = await json('self-service', 'acme', 'off', '--reason', 'contract review');
      expect(off).toMatchObject({ self_service: false, revision: 8 });
      await waitFor(() => directory.get('acme')?.self_service === false, 'self-service off', 10_000);
      expect((await readAll(auditTopic, 8))[7]).toMatchObject({ action: 'partner.self-service-off', reason: 'contract review' });
      await expect(json('self-service', 'acme', 'maybe')).rejects.toThrow(/self-service is "on" or "off", not "maybe"/);
    } finally {
      await ingress.stop('SIGTERM');
    }
  }, 120_000);

  test.each<[string, string[], RegExp]>([
    [
      'HMAC without a secret',
      ['--name', 'X', '--callback-url', 'https://p.example/cb', '--auth-method', 'HMAC_SHA256', '--auth-api-key', 'k'],
      /outbound_auth\.secret: secret is required/,
    ],
    [
      'a malformed callback URL',
      ['--name', 'X', '--callback-url', 'partner.example/cb', '--auth-method', 'BEARER_STATIC', '--auth-token', 't'],
      /callback_endpoints\[0\]\.url: must be an absolute http or https URL/,
    ],
    [
      'a non-http callback URL',
      ['--name', 'X', '--callback-url', 'gopher://p.example', '--auth-method', 'BEARER_STATIC', '--auth-token', 't'],
      /callback_endpoints\[0\]\.url: must use http or https/,
    ],
    ['an unknown auth method', ['--name', 'X', '--auth-method', 'OAUTH1'], /--auth-method.*OAUTH1.*invalid/],
  ])('when created with %s, then it is refused naming the field, exits non-zero and writes nothing', async (_what, args, message) => {
    const before = await endOffset();
    const result = await cli('create', ...args);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(await endOffset()).toBe(before);
  });

  test.each<[string, Record<string, unknown>, RegExp]>([
    [
      'an unknown auth method',
      { name: 'X', callback_endpoints: [{ url: 'https://p.example' }], outbound_auth: { method: 'OAUTH1' } },
      /outbound_auth\.method: method must be one of/,
    ],
    [
      'a mapping naming an unknown field',
      { name: 'X', body: { shape: 'MAPPED', rules: [{ source: 'premium' }] } },
      /body\.rules\[0\]\.source: "premium" is not a field/,
    ],
  ])('when a spec file has %s, then it is refused naming the field and writes nothing', async (_what, spec, message) => {
    const before = await endOffset();
    const file = path.join(require('node:os').tmpdir(), `${uniqueName('spec')}.json`);
    require('node:fs').writeFileSync(file, JSON.stringify(spec));
    const result = await cli('create', '--file', file);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    await sleep(100);
    expect(await endOffset()).toBe(before);
  });

  test('when the partner does not exist, then show exits 3 naming it', async () => {
    const result = await cli('show', 'nobody');
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/no partner "nobody"/);
  });
});
