import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { parse as parseYaml } from 'yaml';
import { type z } from 'zod';
import {
  ApiKeyHasher,
  AvroCodec,
  PartnerDirectory,
  PartnerSpecError,
  PartnerStore,
  SecretBox,
  TopicNames,
  addApiKey,
  javaCompatiblePartitioner,
  apiKeyPeppersSetting,
  createKafkaClient,
  createLogger,
  createPartner,
  defaultSchemasDir,
  describePartner,
  kafkaSettingsSchema,
  loadConfig,
  policyBodyFieldPaths,
  revokeApiKey,
  secretsKeysSetting,
  setPartnerStatus,
  topicCatalogue,
  updatePartner,
  type Partner,
  type PartnerAdminDeps,
} from '@hookstream/shared';
import { formatTable, printJson, printLine } from '../output';
import { environmentWithStackEnv } from '../paths';

/** A refusal of the operator's input: exit 2, nothing written. */
class InputRefused extends Error {}
/** The partner named does not exist: exit 3. */
class PartnerNotFound extends Error {}

interface Session {
  directory: PartnerDirectory;
  store: PartnerStore;
  deps: () => PartnerAdminDeps;
}

/**
 * Connects to Kafka and the registry, reads every partner from partner-config, runs `work`,
 * and disconnects. The secrets settings are read only by the commands that need them.
 */
export async function withPartners<T>(
  needsSecrets: boolean,
  work: (session: Session) => Promise<T>,
  env: NodeJS.ProcessEnv = environmentWithStackEnv(),
): Promise<T> {
  const config = loadConfig(
    needsSecrets ? kafkaSettingsSchema.extend({ ...secretsKeysSetting, ...apiKeyPeppersSetting }) : kafkaSettingsSchema,
    env,
  );
  const logger = createLogger({ service: 'cli', level: 'error' });
  const kafka = createKafkaClient({ brokers: config.KAFKA_BROKERS, clientId: 'hookstream-cli-partners', logger });
  const topic = topicCatalogue({ prefix: config.TOPIC_PREFIX }).find((t) => t.name === TopicNames.partnerConfig)!;
  const codec = new AvroCodec(config.SCHEMA_REGISTRY_URL, defaultSchemasDir(env));
  await codec.registerTopics([topic]);
  const directory = new PartnerDirectory({ kafka, codec, topic: topic.topic, logger });
  const producer = kafka.producer({
    createPartitioner: javaCompatiblePartitioner,
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
  });
  await Promise.all([directory.start(), producer.connect()]);
  try {
    return await work({
      directory,
      store: new PartnerStore(producer, codec, topic.topic),
      deps: () => {
        const secrets = config as unknown as z.infer<z.ZodObject<typeof secretsKeysSetting & typeof apiKeyPeppersSetting>>;
        return {
          box: new SecretBox(secrets.HOOKSTREAM_SECRETS_KEYS),
          hasher: new ApiKeyHasher(secrets.HOOKSTREAM_API_KEY_PEPPERS),
          policyPaths: policyBodyFieldPaths(defaultSchemasDir(env)),
        };
      },
    });
  } finally {
    await Promise.all([directory.stop(), producer.disconnect()]);
  }
}

function requirePartner(directory: PartnerDirectory, partnerId: string): Partner {
  const partner = directory.get(partnerId);
  if (!partner) throw new PartnerNotFound(`no partner "${partnerId}" (see \`hookstream partners list\`)`);
  return partner;
}

/** Reads a JSON or YAML spec file (`-` for standard input). */
function readSpecFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    throw new InputRefused(`cannot read ${file}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = /\.ya?ml$/i.test(file) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    try {
      parsed = parseYaml(text); // JSON is YAML too; this also reads YAML from stdin
    } catch {
      throw new InputRefused(`${file} is neither JSON nor YAML: ${(error as Error).message}`);
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InputRefused(`${file} must hold one object (a partner spec)`);
  return parsed as Record<string, unknown>;
}

interface SpecFlags {
  file?: string;
  id?: string;
  name?: string;
  callbackUrl?: string;
  callbackTimeoutMs?: string;
  statuses?: string;
  products?: string;
  ordering?: string;
  authMethod?: string;
  authHeader?: string;
  authApiKey?: string;
  authSecret?: string;
  authToken?: string;
  authUsername?: string;
  authPassword?: string;
  authIssuer?: string;
  authAlgorithm?: string;
  authTokenUrl?: string;
  bodyShape?: string;
}

const list = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v.length > 0);

function numberFlag(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new InputRefused(`--${name}: "${value}" is not a number`);
  return n;
}

/** A spec (or patch) from --file and flags; flags win over the file. */
function specFromFlags(flags: SpecFlags): Record<string, unknown> {
  const spec: Record<string, unknown> = flags.file ? readSpecFile(flags.file) : {};
  if (flags.id !== undefined) spec.partner_id = flags.id;
  if (flags.name !== undefined) spec.name = flags.name;
  if (flags.callbackUrl !== undefined) {
    const endpoint: Record<string, unknown> = { url: flags.callbackUrl };
    const timeout = numberFlag('callback-timeout-ms', flags.callbackTimeoutMs);
    if (timeout !== undefined) endpoint.timeout_ms = timeout;
    if (flags.statuses !== undefined) endpoint.statuses = list(flags.statuses);
    if (flags.products !== undefined) endpoint.product_codes = list(flags.products);
    if (flags.ordering !== undefined) endpoint.ordering = flags.ordering;
    spec.callback_endpoints = [endpoint];
  } else if ([flags.callbackTimeoutMs, flags.statuses, flags.products, flags.ordering].some((f) => f !== undefined)) {
    throw new InputRefused(
      '--callback-timeout-ms, --statuses, --products and --ordering describe a callback endpoint: give --callback-url too',
    );
  }
  if (flags.authMethod !== undefined) {
    const fields: Array<[string, string | undefined]> = [
      ['header_name', flags.authHeader],
      ['api_key', flags.authApiKey],
      ['secret', flags.authSecret],
      ['token', flags.authToken],
      ['username', flags.authUsername],
      ['password', flags.authPassword],
      ['issuer', flags.authIssuer],
      ['algorithm', flags.authAlgorithm],
      ['token_url', flags.authTokenUrl],
    ];
    spec.outbound_auth = { method: flags.authMethod.toUpperCase(), ...Object.fromEntries(fields.filter(([, v]) => v !== undefined)) };
  } else if (
    [
      flags.authHeader,
      flags.authApiKey,
      flags.authSecret,
      flags.authToken,
      flags.authUsername,
      flags.authPassword,
      flags.authIssuer,
      flags.authAlgorithm,
      flags.authTokenUrl,
    ].some((f) => f !== undefined)
  ) {
    throw new InputRefused('--auth-* flags need --auth-method');
  }
  if (flags.bodyShape !== undefined) spec.body = { ...(spec.body ?? {}), shape: flags.bodyShape };
  return spec;
}

function expiryFlag(value: string | undefined): number | null {
  if (value === undefined) return null;
  const at = Date.parse(value);
  if (Number.isNaN(at)) throw new InputRefused(`--expires-at: "${value}" is not an ISO 8601 date-time`);
  return at;
}

function addSpecOptions(command: Command): Command {
  return command
    .option('--file <path>', 'partner spec as JSON or YAML (- for stdin); flags below override it')
    .option('--name <name>', 'display name')
    .option('--callback-url <url>', 'callback endpoint URL (http or https)')
    .option('--callback-timeout-ms <ms>', 'callback timeout (default 10000)')
    .option('--statuses <list>', 'policy statuses the endpoint wants, comma-separated (default: all)')
    .option('--products <list>', 'product codes the endpoint wants, comma-separated (default: all)')
    .option('--ordering <mode>', 'latest-wins (default) or none')
    .addOption(
      new Option('--auth-method <method>', 'outbound auth method').choices(
        ['API_KEY', 'HMAC_SHA256', 'MD5', 'BEARER_STATIC', 'BEARER_JWT', 'BEARER_FETCHED', 'BASIC', 'STANDARD_WEBHOOKS'].flatMap((m) => [
          m,
          m.toLowerCase(),
        ]),
      ),
    )
    .option('--auth-header <name>', 'API_KEY: the header carrying the key (default x-api-key)')
    .option('--auth-api-key <key>', "API_KEY, HMAC_SHA256: the partner's API key")
    .option('--auth-secret <secret>', 'HMAC_SHA256, MD5, BEARER_JWT, STANDARD_WEBHOOKS: the shared secret')
    .option('--auth-token <token>', 'BEARER_STATIC: the token')
    .option('--auth-username <name>', 'BASIC: user name')
    .option('--auth-password <password>', 'BASIC: password')
    .option('--auth-issuer <iss>', 'BEARER_JWT: the iss claim')
    .option('--auth-algorithm <alg>', 'BEARER_JWT: HS256 (default), HS384 or HS512')
    .option('--auth-token-url <url>', "BEARER_FETCHED: the partner's token endpoint")
    .option('--body-shape <shape>', 'full (default), simplified_policies or mapped (mapping rules need --file)')
    .option('--json', 'one JSON document, for scripts');
}

function printPartner(partner: Partner): void {
  const view = describePartner(partner);
  printLine(
    `${partner.partner_id}  ${partner.name}  (${partner.status}, revision ${partner.revision}, updated ${String(view.updated_at)})`,
  );
  printLine(JSON.stringify(view, null, 2));
}

export function partnersCommand(): Command {
  const partners = new Command('partners').description(
    'onboard partners: inbound API keys, callback endpoints, outbound auth (stored in the partner-config topic)',
  );

  addSpecOptions(partners.command('create').description('create a partner and its first API key (shown once)'))
    .option('--id <partnerId>', 'partner id (default: from the name)')
    .option('--key-expires-at <iso>', 'expiry of the first API key (default: none)')
    .action(async (flags: SpecFlags & { json?: boolean; keyExpiresAt?: string }) => {
      const spec = specFromFlags(flags);
      await withPartners(true, async ({ directory, store, deps }) => {
        const { partner, apiKey } = createPartner(spec, deps(), { keyExpiresAt: expiryFlag(flags.keyExpiresAt) });
        if (directory.get(partner.partner_id)) throw new InputRefused(`partner_id: "${partner.partner_id}" exists already`);
        await store.write(partner);
        if (flags.json) {
          printJson({ partner_id: partner.partner_id, api_key: apiKey.key, key_id: apiKey.keyId, partner: describePartner(partner) });
        } else {
          printLine(`created partner ${partner.partner_id} (revision ${partner.revision})`);
          printLine(`API key ${apiKey.keyId}, shown only now; give it to the partner: ${apiKey.key}`);
        }
      });
    });

  partners
    .command('list')
    .description('every partner, one line each')
    .option('--json', 'one JSON document, for scripts')
    .action(async (flags: { json?: boolean }) => {
      await withPartners(false, ({ directory }) => {
        const all = directory.list();
        if (flags.json) {
          printJson(all.map(describePartner));
          return Promise.resolve();
        }
        if (all.length === 0) {
          printLine('no partners');
          return Promise.resolve();
        }
        printLine(
          formatTable([
            ['partner', 'name', 'status', 'active keys', 'callbacks', 'auth', 'revision'],
            ...all.map((p) => [
              p.partner_id,
              p.name,
              p.status,
              String(p.api_keys.filter((k) => k.revoked_at === null && (k.expires_at === null || k.expires_at > Date.now())).length),
              String(p.callback_endpoints.length),
              p.outbound_auth?.method ?? '-',
              String(p.revision),
            ]),
          ]),
        );
        return Promise.resolve();
      });
    });

  partners
    .command('show')
    .description('one partner, secrets masked')
    .argument('<partnerId>')
    .option('--json', 'one JSON document, for scripts')
    .action(async (partnerId: string, flags: { json?: boolean }) => {
      await withPartners(false, ({ directory }) => {
        const partner = requirePartner(directory, partnerId);
        if (flags.json) printJson(describePartner(partner));
        else printPartner(partner);
        return Promise.resolve();
      });
    });

  addSpecOptions(partners.command('update').description('change a partner: each field given replaces the current one'))
    .argument('<partnerId>')
    .action(async (partnerId: string, flags: SpecFlags & { json?: boolean }) => {
      const patch = specFromFlags(flags);
      if (Object.keys(patch).length === 0) throw new InputRefused('nothing to change: give --file or flags');
      await withPartners(true, async ({ directory, store, deps }) => {
        const next = updatePartner(requirePartner(directory, partnerId), patch, deps());
        await store.write(next);
        if (flags.json) printJson(describePartner(next));
        else printLine(`updated ${next.partner_id} (revision ${next.revision})`);
      });
    });

  partners
    .command('add-key')
    .description('issue another API key (rotation: it works beside the old ones until they are revoked)')
    .argument('<partnerId>')
    .option('--expires-at <iso>', 'expiry (default: none)')
    .option('--json', 'one JSON document, for scripts')
    .action(async (partnerId: string, flags: { expiresAt?: string; json?: boolean }) => {
      const expiresAt = expiryFlag(flags.expiresAt);
      await withPartners(true, async ({ directory, store, deps }) => {
        const { partner, apiKey } = addApiKey(requirePartner(directory, partnerId), deps(), { expiresAt });
        await store.write(partner);
        if (flags.json) printJson({ partner_id: partner.partner_id, api_key: apiKey.key, key_id: apiKey.keyId });
        else printLine(`API key ${apiKey.keyId} for ${partner.partner_id}, shown only now: ${apiKey.key}`);
      });
    });

  partners
    .command('revoke-key')
    .description('stop accepting one API key')
    .argument('<partnerId>')
    .argument('<keyId>')
    .option('--json', 'one JSON document, for scripts')
    .action(async (partnerId: string, keyId: string, flags: { json?: boolean }) => {
      await withPartners(false, async ({ directory, store }) => {
        const next = revokeApiKey(requirePartner(directory, partnerId), keyId, {});
        await store.write(next);
        if (flags.json) printJson(describePartner(next));
        else printLine(`revoked ${keyId} of ${partnerId} (revision ${next.revision})`);
      });
    });

  for (const [name, status, what] of [
    ['disable', 'DISABLED', 'refuse every API key of the partner and send it no callbacks'],
    ['enable', 'ACTIVE', 'accept the partner again'],
  ] as const) {
    partners
      .command(name)
      .description(what)
      .argument('<partnerId>')
      .option('--json', 'one JSON document, for scripts')
      .action(async (partnerId: string, flags: { json?: boolean }) => {
        await withPartners(false, async ({ directory, store }) => {
          const next = setPartnerStatus(requirePartner(directory, partnerId), status, {});
          await store.write(next);
          if (flags.json) printJson(describePartner(next));
          else printLine(`${partnerId} is now ${status} (revision ${next.revision})`);
        });
      });
  }

  return partners;
}

/** Exit code and message for the partners commands' own failures (undefined: not one of them). */
export function partnersFailure(error: unknown): { code: number; message: string } | undefined {
  if (error instanceof PartnerSpecError || error instanceof InputRefused) return { code: 2, message: error.message };
  if (error instanceof PartnerNotFound) return { code: 3, message: error.message };
  return undefined;
}
