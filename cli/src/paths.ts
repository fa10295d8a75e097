import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';

/** The repository's root folder (cli/src or cli/dist → ../..). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** The dotenv file `stack up` writes and every CLI command reads: HOOKSTREAM_STACK_ENV_FILE, else .hookstream/stack.env in the repository. */
export const STACK_ENV_FILE = process.env.HOOKSTREAM_STACK_ENV_FILE ?? path.join(REPO_ROOT, '.hookstream', 'stack.env');

/**
 * The environment a CLI command runs with: the process's own variables win; settings that
 * `hookstream stack up` saved in .hookstream/stack.env fill what is not set.
 */
export function environmentWithStackEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (!existsSync(STACK_ENV_FILE)) return env;
  const saved = parseEnv(readFileSync(STACK_ENV_FILE, 'utf8'));
  return { ...saved, ...env };
}
