import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { StackError } from '@hookstream/errors';
import { Interrupted, endedByInterrupt } from './interruption';
import { STACK_VERSIONS } from './versions';

const run = promisify(execFile);

/** Where fetched artifacts live: HOOKSTREAM_CACHE_DIR, else $XDG_CACHE_HOME/hookstream, else ~/.cache/hookstream. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HOOKSTREAM_CACHE_DIR) return env.HOOKSTREAM_CACHE_DIR;
  const base = env.XDG_CACHE_HOME ?? path.join(env.HOME ?? '/tmp', '.cache');
  return path.join(base, 'hookstream');
}

async function maven(args: string[], cwd: string, signal: AbortSignal | undefined): Promise<void> {
  try {
    await run('mvn', ['-q', '-B', ...args], { cwd, timeout: 15 * 60_000, maxBuffer: 16 * 1024 * 1024, signal });
  } catch (error) {
    if (endedByInterrupt(error, signal)) throw new Interrupted();
    const e = error as { code?: unknown; signal?: string | null; stdout?: string; stderr?: string };
    if (e.code === 'ENOENT') {
      throw new StackError(
        'Maven (mvn) is not on PATH: the local stack fetches Kafka and Apicurio through Maven. Install it (apt-get install maven).',
      );
    }
    const output = `${e.stdout ?? ''}${e.stderr ?? ''}`.trim().split('\n').slice(-15).join('\n');
    const how = e.signal ? `was killed by ${e.signal}` : 'failed';
    throw new StackError(`Maven ${how} (mvn ${args.join(' ')})${output ? `:\n${output}` : ''}`, { cause: error, retryable: true });
  }
}

/**
 * Builds `finalDir` once: `fill` writes into a fresh sibling folder which is then renamed into
 * place, so an interrupted fetch never leaves a half-filled cache entry and two processes
 * fetching at once both end with one complete copy.
 */
export async function fillOnce(finalDir: string, fill: (workDir: string) => Promise<void>): Promise<string> {
  if (existsSync(path.join(finalDir, '.complete'))) return finalDir;
  mkdirSync(path.dirname(finalDir), { recursive: true });
  const workDir = mkdtempSync(`${finalDir}.partial-`);
  try {
    await fill(workDir);
    writeFileSync(path.join(workDir, '.complete'), new Date().toISOString());
    if (existsSync(finalDir)) rmSync(finalDir, { recursive: true, force: true });
    try {
      renameSync(workDir, finalDir);
    } catch (error) {
      if (!existsSync(path.join(finalDir, '.complete'))) throw error; // another process won the race
    }
    return finalDir;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

export interface FetchedArtifact {
  dir: string;
  /** True when it was already in the cache. */
  cached: boolean;
}

/** The Kafka broker's class path (a lib/ folder of jars) for the pinned version. */
export async function ensureKafka(cacheDir: string, signal?: AbortSignal): Promise<FetchedArtifact> {
  const dir = path.join(cacheDir, `kafka-${STACK_VERSIONS.kafka}`);
  const cached = existsSync(path.join(dir, '.complete'));
  await fillOnce(dir, async (work) => {
    writeFileSync(
      path.join(work, 'pom.xml'),
      `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>io.hookstream.local</groupId><artifactId>kafka-runtime</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>${STACK_VERSIONS.kafka}</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId><version>${STACK_VERSIONS.log4j}</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>${STACK_VERSIONS.log4j}</version></dependency>
  </dependencies>
</project>
`,
    );
    await maven(['dependency:copy-dependencies', '-DincludeScope=runtime', `-DoutputDirectory=${path.join(work, 'lib')}`], work, signal);
    if (!readdirSync(path.join(work, 'lib')).some((f) => f.startsWith('kafka_2.13-'))) {
      throw new StackError(`Maven finished but the Kafka ${STACK_VERSIONS.kafka} broker jar is missing`);
    }
  });
  return { dir, cached };
}

/** Copies one Maven artifact (`group:id:version:type:classifier`) into `dir`. */
export function mavenCopy(artifact: string, dir: string, signal?: AbortSignal): Promise<void> {
  return maven(['dependency:copy', `-Dartifact=${artifact}`, `-DoutputDirectory=${dir}`], dir, signal);
}

/** The unpacked Apicurio Registry (quarkus-run.jar and its lib/) for the pinned version. */
export async function ensureApicurio(cacheDir: string, signal?: AbortSignal): Promise<FetchedArtifact> {
  const dir = path.join(cacheDir, `apicurio-registry-${STACK_VERSIONS.apicurio}`);
  const cached = existsSync(path.join(dir, '.complete'));
  await fillOnce(dir, async (work) => {
    const artifact = `io.apicurio:apicurio-registry-app:${STACK_VERSIONS.apicurio}:tar.gz:all`;
    await maven(['dependency:copy', `-Dartifact=${artifact}`, `-DoutputDirectory=${work}`], work, signal);
    const archive = readdirSync(work).find((f) => f.endsWith('.tar.gz'));
    if (!archive) throw new StackError(`Maven finished but ${artifact} is missing`);
    try {
      await run('tar', ['xzf', archive], { cwd: work, signal });
    } catch (error) {
      if (endedByInterrupt(error, signal)) throw new Interrupted();
      throw new StackError(`unpacking ${archive} failed: ${(error as { stderr?: string }).stderr?.trim() || String(error)}`, {
        cause: error,
      });
    }
    rmSync(path.join(work, archive));
    rmSync(path.join(work, 'pom.xml'), { force: true });
    if (!existsSync(path.join(work, 'quarkus-run.jar'))) throw new StackError(`${artifact} has no quarkus-run.jar`);
  });
  return { dir, cached };
}
