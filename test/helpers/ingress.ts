import path from 'node:path';
import {
  ApiKeyHasher,
  PartnerStore,
  addApiKey,
  createPartner,
  policyBodyFieldPaths,
  revokeApiKey,
  setPartnerStatus,
  type Partner,
  type PartnerAdminDeps,
} from '@hookstream/partners';
import { AvroCodec, defaultSchemasDir, topicCatalogue, type Kafka, type Producer } from '@hookstream/kafka';
import { SecretBox, apiKeyPeppersSetting, loadConfig, secretsKeysSetting } from '@hookstream/runtime';
import { z } from 'zod';
import { testInfrastructure, testKafka, waitFor } from './infrastructure';
import { REPO_ROOT, runCli, startReadyService, type RunningService } from './processes';

export const INGRESS_ENTRY = path.join(REPO_ROOT, 'services', 'ingress', 'dist', 'main.js');

/** Topics of one test file (its own prefix), created like production does. */
export async function ensureTopics(prefix: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const result = await runCli(['topics', 'ensure'], { env: { ...env, TOPIC_PREFIX: prefix, TOPIC_PARTITIONS: '3' } });
  if (result.code !== 0) throw new Error(`topics ensure failed: ${result.stderr}`);
}

/** Onboards partners straight into partner-config (as `hookstream partners` does). */
export class TestPartners {
  private readonly deps: PartnerAdminDeps;
  private store: PartnerStore | undefined;
  private producer: Producer | undefined;
  private readonly partners = new Map<string, Partner>();

  constructor(
    private readonly kafka: Kafka,
    private readonly prefix: string,
    private readonly registryUrl: string,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    const secrets = loadConfig(z.object({ ...secretsKeysSetting, ...apiKeyPeppersSetting }), env);
    this.deps = {
      box: new SecretBox(secrets.HOOKSTREAM_SECRETS_KEYS),
      hasher: new ApiKeyHasher(secrets.HOOKSTREAM_API_KEY_PEPPERS),
      policyPaths: policyBodyFieldPaths(defaultSchemasDir()),
    };
  }

  private async write(partner: Partner): Promise<void> {
    if (!this.store) {
      const topic = topicCatalogue({ prefix: this.prefix }).find((t) => t.name === 'partner-config')!;
      const codec = new AvroCodec(this.registryUrl, defaultSchemasDir());
      await codec.registerTopics([topic]);
      const producer = this.kafka.producer();
      await producer.connect();
      this.producer = producer;
      this.store = new PartnerStore(producer, codec, topic.topic);
    }
    await this.store.write(partner);
    this.partners.set(partner.partner_id, partner);
  }

  async create(partnerId: string, spec: Record<string, unknown> = {}): Promise<string> {
    const { partner, apiKey } = createPartner({ partner_id: partnerId, name: partnerId, ...spec }, this.deps);
    await this.write(partner);
    return apiKey.key;
  }

  async addKey(partnerId: string, expiresAt: number | null = null): Promise<{ key: string; keyId: string }> {
    const { partner, apiKey } = addApiKey(this.partners.get(partnerId)!, this.deps, { expiresAt });
    await this.write(partner);
    return { key: apiKey.key, keyId: apiKey.keyId };
  }

  async revoke(partnerId: string, keyId: string): Promise<void> {
    await this.write(revokeApiKey(this.partners.get(partnerId)!, keyId, this.deps));
  }

  async setStatus(partnerId: string, status: 'ACTIVE' | 'DISABLED'): Promise<void> {
    await this.write(setPartnerStatus(this.partners.get(partnerId)!, status, this.deps));
  }

  /** Disconnects the producer (an open connection keeps jest from exiting). */
  async close(): Promise<void> {
    await this.producer?.disconnect();
  }

  keyIds(partnerId: string): string[] {
    return this.partners.get(partnerId)!.api_keys.map((k) => k.key_id);
  }
}

export interface RunningIngress extends RunningService {
  /** Where partners POST their webhooks (under INGRESS_BASE_PATH when set). */
  webhookUrl: string;
}

/** Starts an ingress process (compiled code) on `prefix`'s topics, logging at info, and waits until /readyz says ready. */
export async function startIngress(prefix: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<RunningIngress> {
  const ingress = await startReadyService(INGRESS_ENTRY, { ...process.env, TOPIC_PREFIX: prefix, LOG_LEVEL: 'info', ...extraEnv });
  return { ...ingress, webhookUrl: `${ingress.url}${extraEnv.INGRESS_BASE_PATH ?? ''}/api/integration/partner/webhook` };
}

/** POSTs a webhook; the body is sent as given when it is a string. */
export async function postWebhook(url: string, apiKey: string | undefined, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(apiKey ? { 'x-api-key': apiKey } : {}), ...headers },
    body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json: json as Record<string, unknown>, headers: response.headers };
}

/** Every record on `<prefix>partner-events`, decoded through the registry. */
export async function readPartnerEvents(prefix: string, quietMs = 1500): Promise<Array<{ key: string; value: Record<string, unknown> }>> {
  const { registryUrl } = testInfrastructure();
  const kafka = testKafka();
  const topic = `${prefix}partner-events`;
  const codec = new AvroCodec(registryUrl, defaultSchemasDir());
  await codec.registerTopics([{ topic, schemaFile: 'partner-event.avsc' }]);
  const records: Array<{ key: string; value: Record<string, unknown> }> = [];
  const consumer = kafka.consumer({
    groupId: `reader-${Math.random().toString(36).slice(2)}`,
    readUncommitted: false,
    fromBeginning: true,
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic] });
  let last = Date.now();
  await consumer.run({
    eachMessage: async ({ message }) => {
      records.push({ key: message.key?.toString() ?? '', value: (await codec.decode(message.value!, topic)) as Record<string, unknown> });
      last = Date.now();
    },
  });
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  const expectedMin = ends.some((p) => Number(p.high) > 0);
  await waitFor(
    () => Date.now() - last > quietMs && (!expectedMin || records.length > 0 || Date.now() - last > quietMs * 2),
    'partner-events to go quiet',
    30_000,
  );
  await consumer.disconnect();
  return records;
}

/** A valid webhook body. */
export function webhook(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    request_id: `req-${Math.random().toString(36).slice(2)}`,
    transaction_number: `TRX-${Math.random().toString(36).slice(2, 8)}`,
    transaction_type: 'POLICY',
    status: 'POLICY_ISSUED',
    documents: [{ type: 'POLICY_CERTIFICATE', url: 'https://docs.example/cert.pdf', filename: 'cert.pdf' }],
    ...overrides,
  };
}
