import path from 'node:path';
import { ServiceChild } from '@hookstream/shared';
import { printLine } from '../output';
import { REPO_ROOT } from '../paths';

/** One of the system's services, as `hookstream start` runs it. */
export interface ServiceSpec {
  name: string;
  /** Its compiled entry point, from the repository's root. */
  entry: string;
  defaultPort: number;
}

/**
 * Starts one incarnation of a service on `port` (every incarnation of it takes the same port, so
 * its URL never changes), with the same Node; its log lines are printed prefixed with its name.
 */
export function spawnService(spec: ServiceSpec, port: number, env: NodeJS.ProcessEnv): ServiceChild {
  return ServiceChild.spawn({
    name: spec.name,
    entry: path.join(REPO_ROOT, spec.entry),
    cwd: REPO_ROOT,
    port,
    env,
    onLine: (line) => printLine(`[${spec.name}] ${line}`),
  });
}
