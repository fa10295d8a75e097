import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { StackError } from '@hookstream/errors';
import type { JavaRuntime } from './java';
import { startProcess, type StartedProcess } from './processes';

export interface RegistrySettings {
  java: JavaRuntime;
  /** Folder holding quarkus-run.jar. */
  apicurioDir: string;
  /** Folder for the registry's H2 database, temp files and log (kept across restarts unless wiped). */
  dir: string;
  port: number;
  managementPort: number;
}

/** Path of the Confluent-compatible API on Apicurio. */
export const CCOMPAT_PATH = '/apis/ccompat/v7';

/**
 * Starts Apicurio Registry with its storage in an H2 file beside Kafka's log, so schemas and
 * the records that reference them survive restarts together (and are wiped together). H2
 * survived restarts and kill -9 here and starts in ~3-5 s (kafkasql storage takes 10-12 s
 * and leaves a consumer group per start); see docs/local-stack.md.
 */
export function startRegistry(s: RegistrySettings): StartedProcess & { logFile: string } {
  const tmp = path.join(s.dir, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const logFile = path.join(s.dir, 'registry.log');
  const args = [
    '-Xmx192m',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    '-XX:-UsePerfData',
    `-Djava.io.tmpdir=${tmp}`,
    '-Dquarkus.http.host=127.0.0.1',
    `-Dquarkus.http.port=${s.port}`,
    '-Dquarkus.management.host=127.0.0.1',
    `-Dquarkus.management.port=${s.managementPort}`,
    '-jar',
    path.join(s.apicurioDir, 'quarkus-run.jar'),
  ];
  const env = {
    ...process.env,
    APICURIO_STORAGE_KIND: 'sql',
    APICURIO_STORAGE_SQL_KIND: 'h2',
    APICURIO_DATASOURCE_URL: `jdbc:h2:file:${path.join(s.dir, 'registry')};WRITE_DELAY=0`,
  };
  return { ...startProcess(s.java.executable, args, { cwd: s.dir, env, logFile }), logFile };
}

/** Apicurio's global default is NONE; Hookstream wants BACKWARD everywhere (each subject also sets it). */
export async function setBackwardCompatibility(registryUrl: string, signal: AbortSignal): Promise<void> {
  const response = await fetch(`${registryUrl}/config`, {
    method: 'PUT',
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
    body: JSON.stringify({ compatibility: 'BACKWARD' }),
    signal: AbortSignal.any([signal, AbortSignal.timeout(10_000)]),
  });
  if (!response.ok) throw new StackError(`the registry refused its default compatibility setting: HTTP ${response.status}`);
}
