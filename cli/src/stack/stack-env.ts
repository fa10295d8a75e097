import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { traceSettings, type StackRunInfo } from './run-info';
import { localSecrets } from './state-dir';

/** The first line of a stack.env names the state dir of the stack it was written for. */
const FIRST_LINE = /^# Written by `hookstream stack up` at \S+; state in (.+)\.$/;

/** Writes the settings as a dotenv file (`stack.env`), readable by its owner only: it holds the local keys. */
export function writeStackEnv(file: string, info: StackRunInfo): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const secrets = localSecrets(info.stateDir);
  const lines = [
    `# Written by \`hookstream stack up\` at ${info.startedAt}; state in ${info.stateDir}.`,
    `KAFKA_BROKERS=${info.settings.KAFKA_BROKERS}`,
    `SCHEMA_REGISTRY_URL=${info.settings.SCHEMA_REGISTRY_URL}`,
    // The state database the services share (their PostgreSQL store); `hookstream start` gives the delivery log a database of its own beside it.
    ...(info.settings.DATABASE_URL ? [`DATABASE_URL=${info.settings.DATABASE_URL}`] : []),
    // Where the services export their spans, and the console's link to a trace: the stack's Jaeger, when it runs one.
    ...Object.entries(traceSettings(info)).map(([name, value]) => `${name}=${value}`),
    '# Local-only keys for partner secrets, API key hashes and portal tokens (made once per state dir).',
    `HOOKSTREAM_SECRETS_KEYS=${secrets.HOOKSTREAM_SECRETS_KEYS}`,
    `HOOKSTREAM_API_KEY_PEPPERS=${secrets.HOOKSTREAM_API_KEY_PEPPERS}`,
    `HOOKSTREAM_PORTAL_TOKEN_KEYS=${secrets.HOOKSTREAM_PORTAL_TOKEN_KEYS}`,
    '',
  ];
  writeFileSync(file, lines.join('\n'), { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** The state dir whose stack `file` was written for, or undefined (no file, or not one of ours). */
export function stackEnvStateDir(file: string): string | undefined {
  try {
    return FIRST_LINE.exec(readFileSync(file, 'utf8').split('\n', 1)[0] ?? '')?.[1];
  } catch {
    return undefined;
  }
}

/**
 * Removes `file` when it was written for the stack of `stateDir`, which has just stopped: left
 * behind it would point every later command at a dead broker. The file of another state dir's
 * stack (which may still run) is kept.
 */
export function removeStackEnvOf(file: string, stateDir: string): boolean {
  const writtenFor = stackEnvStateDir(file);
  if (writtenFor === undefined || path.resolve(writtenFor) !== path.resolve(stateDir)) return false;
  rmSync(file, { force: true });
  return true;
}
