import path from 'node:path';
import { ServiceChild } from '@hookstream/runtime';
import { printLine } from '../output';
import { REPO_ROOT } from '../paths';

/** One of the system's services, as `hookstream start` runs it. */
export interface ServiceSpec {
  name: string;
  /** Its compiled entry point, from the repository's root. */
  entry: string;
  defaultPort: number;
  /** Its OPS_PORT's default, for a service with a public API (its /metrics, /healthz, /readyz are there). */
  defaultOpsPort?: number;
}

/** The ports one service takes: its HTTP_PORT, and its OPS_PORT if it has a public API. */
export interface ServicePorts {
  port: number;
  opsPort?: number;
}

/**
 * Starts one incarnation of a service on `ports` (every incarnation of it takes the same ones, so
 * its URLs never change), with the same Node; its log lines are printed prefixed with its name.
 * Every incarnation is the same static group member (KAFKA_GROUP_INSTANCE_ID, unless set): one
 * restarted after a crash takes its partitions back at once, not after the dead one's session.
 */
export function spawnService(spec: ServiceSpec, ports: ServicePorts, env: NodeJS.ProcessEnv): ServiceChild {
  return ServiceChild.spawn({
    name: spec.name,
    entry: path.join(REPO_ROOT, spec.entry),
    cwd: REPO_ROOT,
    ...ports,
    env: { KAFKA_GROUP_INSTANCE_ID: `${spec.name}-1`, ...env },
    onLine: (line) => printLine(`[${spec.name}] ${line}`),
  });
}
