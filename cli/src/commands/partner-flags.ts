import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { InputRefused } from '../exit-codes';

/**
 * The partner spec as an operator gives it: a JSON or YAML file and/or flags (flags win), turned
 * into the plain object that partner-spec validation takes. Bad input is refused here with the
 * flag's name (exit 2); the spec's own rules are checked by createPartner/updatePartner.
 */

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

export interface SpecFlags {
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
export function specFromFlags(flags: SpecFlags): Record<string, unknown> {
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

export function expiryFlag(value: string | undefined): number | null {
  if (value === undefined) return null;
  const at = Date.parse(value);
  if (Number.isNaN(at)) throw new InputRefused(`--expires-at: "${value}" is not an ISO 8601 date-time`);
  return at;
}

/** --overlap-hours: how long rotated-out keys keep working, in ms (the range is the use case's to refuse). */
export function overlapFlag(value: string): number {
  const hours = Number(value);
  if (value.trim() === '' || !Number.isFinite(hours)) throw new InputRefused(`--overlap-hours: "${value}" is not a number of hours`);
  return Math.round(hours * 3_600_000);
}

export function addSpecOptions(command: Command): Command {
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
    .option('--reason <text>', 'why, for the audit trail (admin-audit)')
    .option('--json', 'one JSON document, for scripts');
}
