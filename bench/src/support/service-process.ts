/**
 * One service as a child process of a bench: its compiled dist/main.js on a free port, logging at
 * warn, with the watchdog preloaded; ready once its /readyz answers 200. Its first log lines are
 * shown on stderr (at warn, whatever it logs matters) and the rest counted.
 *
 * Env: BENCH_PROFILE (see bench-run.ts), BENCH_SERVICE_NODE_ARGS (node flags for the services,
 * e.g. "--trace-gc-nvp"; split on spaces), BENCH_SERVICE_OUTPUT_DIR (each service's whole
 * standard output is copied to <name>.log there).
 */
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { freePort, SERVICES_WITH_OPS_PORT, ServiceChild } from '@hookstream/runtime';
import { REPO_ROOT, profileArgs, trackChild } from './bench-run';
import { BENCH_PID_ENV } from './service-watchdog';

/** Lines of each service's log (warnings and errors only) shown on stderr; the rest are counted. */
const SERVICE_LOG_LINES = 20;
const serviceNodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
const WATCHDOG = path.join(__dirname, 'service-watchdog.js');

export class ServiceProcess {
  private logLines = 0;
  private readonly service: ServiceChild;

  private constructor(
    readonly name: string,
    port: number,
    opsPort: number | undefined,
    env: NodeJS.ProcessEnv,
  ) {
    const copy = process.env.BENCH_SERVICE_OUTPUT_DIR
      ? createWriteStream(path.join(process.env.BENCH_SERVICE_OUTPUT_DIR, `${name}.log`))
      : undefined;
    this.service = ServiceChild.spawn({
      name,
      entry: path.join(REPO_ROOT, 'services', name, 'dist', 'main.js'),
      port,
      ...(opsPort === undefined ? {} : { opsPort }),
      nodeArgs: [...profileArgs, ...serviceNodeArgs, '--require', WATCHDOG],
      env: { ...env, LOG_LEVEL: 'warn', [BENCH_PID_ENV]: String(process.pid) },
      onLine: (line, stream) => {
        // Its stderr (a crash) is the bench's, as it comes.
        if (stream === 'stderr') return void process.stderr.write(`${line}\n`);
        copy?.write(`${line}\n`);
        if (++this.logLines <= SERVICE_LOG_LINES) console.error(`[${name}] ${line.slice(0, 400)}`);
      },
    });
    trackChild(this.service.child);
  }

  /** Starts `services/<name>/dist/main.js` and waits until its /readyz answers 200 (60 s at most). */
  static async start(name: string, env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
    const opsPort = SERVICES_WITH_OPS_PORT.includes(name) ? await freePort() : undefined;
    const started = new ServiceProcess(name, await freePort(), opsPort, env);
    await started.service.untilReady({ timeoutMs: 60_000 });
    return started;
  }

  get url(): string {
    return this.service.url;
  }

  /** Where its /metrics answers (its ops port, for a service with a public API). */
  get opsUrl(): string {
    return this.service.opsUrl;
  }

  get pid(): number | undefined {
    return this.service.child.pid;
  }

  /** Fails when the service has died. */
  checkAlive(): void {
    const ended = this.service.exitStatus;
    if (ended) throw new Error(`the ${this.name} exited (${ended.code ?? ended.signal})`);
  }

  async metrics(): Promise<string> {
    return (await fetch(`${this.opsUrl}/metrics`)).text();
  }

  /** kill -9: no shutdown of its own, as a crashed or evicted replica ends. */
  async kill(): Promise<void> {
    await this.service.stop({ signal: 'SIGKILL' });
  }

  /** SIGTERM, then up to 15 s to stop on its own (it writes its CPU profile then) before SIGKILL. */
  async stop(): Promise<void> {
    await this.service.stop({ graceMs: 15_000 });
    if (this.logLines > SERVICE_LOG_LINES) console.error(`[${this.name}] … ${this.logLines - SERVICE_LOG_LINES} more log lines not shown`);
  }
}
