/**
 * One service as a child process of a bench: its compiled dist/main.js on a free port, logging at
 * warn, with the watchdog preloaded; ready once its /readyz answers 200. Its first log lines are
 * shown on stderr (at warn, whatever it logs matters) and the rest counted.
 *
 * Env: BENCH_PROFILE (see bench-run.ts), BENCH_SERVICE_NODE_ARGS (node flags for the services,
 * e.g. "--trace-gc-nvp"; split on spaces), BENCH_SERVICE_OUTPUT_DIR (each service's whole
 * standard output is copied to <name>.log there).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { sleep } from '@hookstream/shared';
import { REPO_ROOT, freePort, profileArgs, trackChild } from './bench-run';
import { BENCH_PID_ENV } from './service-watchdog';

/** Lines of each service's log (warnings and errors only) shown on stderr; the rest are counted. */
const SERVICE_LOG_LINES = 20;
const serviceNodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
const WATCHDOG = path.join(__dirname, 'service-watchdog.js');

export class ServiceProcess {
  private logLines = 0;

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
    readonly url: string,
  ) {
    const copy = process.env.BENCH_SERVICE_OUTPUT_DIR
      ? createWriteStream(path.join(process.env.BENCH_SERVICE_OUTPUT_DIR, `${name}.log`))
      : undefined;
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      copy?.write(`${line}\n`);
      if (++this.logLines <= SERVICE_LOG_LINES) console.error(`[${name}] ${line.slice(0, 400)}`);
    });
  }

  /** Starts `services/<name>/dist/main.js` and waits until its /readyz answers 200. */
  static async start(name: string, env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [...profileArgs, ...serviceNodeArgs, '--require', WATCHDOG, path.join(REPO_ROOT, 'services', name, 'dist', 'main.js')],
      {
        env: { ...env, HTTP_PORT: String(port), LOG_LEVEL: 'warn', [BENCH_PID_ENV]: String(process.pid) },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    trackChild(child);
    const service = new ServiceProcess(name, child, `http://127.0.0.1:${port}`);
    for (let i = 0; i < 300; i++) {
      if (child.exitCode !== null) throw new Error(`the ${name} exited with ${child.exitCode}`);
      if ((await fetch(`${service.url}/readyz`).catch(() => undefined))?.status === 200) return service;
      await sleep(200);
    }
    throw new Error(`the ${name} is not ready after 60 s`);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Fails when the service has died. */
  checkAlive(): void {
    if (this.child.exitCode !== null || this.child.signalCode !== null) {
      throw new Error(`the ${this.name} exited (${this.child.exitCode ?? this.child.signalCode})`);
    }
  }

  async metrics(): Promise<string> {
    return (await fetch(`${this.url}/metrics`)).text();
  }

  /** SIGTERM, then up to 15 s to stop on its own (it writes its CPU profile then); the exit hook kills what is left. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await Promise.race([exited, sleep(15_000)]);
    if (this.logLines > SERVICE_LOG_LINES) console.error(`[${this.name}] … ${this.logLines - SERVICE_LOG_LINES} more log lines not shown`);
  }
}
