import { ConfigError } from '@hookstream/errors';
import { untilReady, type ServiceChild } from '@hookstream/runtime';
import { spawnService, type ServicePorts, type ServiceSpec } from './service-process';
import { SupervisedProcess, type Dependency } from './supervised-process';

/** Exit code of a Hookstream process that refused its configuration (as the CLI's own ConfigError gives). */
export const CONFIG_REFUSED = 2;

/** A child that exited 2 refused its configuration: the same exit code for `start` as a bad setting of its own. */
export function refusedConfig(who: string): ConfigError {
  return new ConfigError([{ variable: who, message: 'refused its configuration (see its lines above)' }]);
}

/** A service kept running by `hookstream start`. */
export interface SupervisedService {
  spec: ServiceSpec;
  /** The same for every incarnation (each takes the same port). */
  url: string;
  /** Where its /metrics, /healthz and /readyz answer: its ops port for a service with a public API, else `url`. */
  opsUrl: string;
  /** Rejects when the service is given up on, or refused its configuration; resolves once stopped. */
  done: Promise<void>;
  /** Stops supervising, then the running incarnation (SIGTERM, SIGKILL after 15 s). */
  stop: () => Promise<void>;
}

/**
 * Starts a service and keeps it running: when it crashes it is started again on the same port
 * (see RestartPolicy), and `say` tells how it ended and when it is ready again. Exit code 2
 * (its configuration refused) is never retried: a restart would refuse it again.
 */
export function superviseService(
  spec: ServiceSpec,
  ports: ServicePorts,
  env: NodeJS.ProcessEnv,
  options: { dependency?: Dependency; say: (line: string) => void },
): SupervisedService {
  let current: ServiceChild = spawnService(spec, ports, env);
  const { url, opsUrl } = current;
  const supervised = new SupervisedProcess({
    name: spec.name,
    say: options.say,
    ...(options.dependency ? { dependency: options.dependency } : {}),
    launch: () => Promise.resolve((current = spawnService(spec, ports, env))),
    refusal: (status) => (status?.code === CONFIG_REFUSED ? refusedConfig(spec.name) : undefined),
    whenServing: (signal) => untilReady(opsUrl, signal),
  });
  const done = supervised.supervise(current);
  return {
    spec,
    url,
    opsUrl,
    done,
    stop: async () => {
      supervised.stop();
      await current.stop();
    },
  };
}
