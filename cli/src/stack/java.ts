import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { StackError } from '@hookstream/errors';

const run = promisify(execFile);

export interface JavaRuntime {
  /** Path of the `java` executable. */
  executable: string;
  /** Feature release, e.g. 25. */
  major: number;
  home: string;
}

/** Parses `JAVA_VERSION="25.0.1"` (release file) or `version "17.0.15"` (java -version): "1.8.0" → 8. */
export function parseJavaMajor(text: string): number | undefined {
  const match = /(?:JAVA_VERSION=|version )"(\d+)(?:\.(\d+))?/.exec(text);
  if (!match?.[1]) return undefined;
  const first = Number(match[1]);
  return first === 1 && match[2] ? Number(match[2]) : first;
}

async function inspect(home: string): Promise<JavaRuntime | undefined> {
  const executable = path.join(home, 'bin', 'java');
  if (!existsSync(executable)) return undefined;
  const release = path.join(home, 'release');
  let major = existsSync(release) ? parseJavaMajor(readFileSync(release, 'utf8')) : undefined;
  if (major === undefined) {
    try {
      const { stderr, stdout } = await run(executable, ['-version'], { timeout: 10_000 });
      major = parseJavaMajor(stderr + stdout);
    } catch {
      return undefined;
    }
  }
  return major === undefined ? undefined : { executable, major, home };
}

/** JDK homes to consider, most specific first: HOOKSTREAM_JAVA_HOME, JAVA_HOME, the `java` on PATH, the usual install folders. */
async function candidateHomes(env: NodeJS.ProcessEnv): Promise<string[]> {
  const homes: string[] = [];
  if (env.HOOKSTREAM_JAVA_HOME) homes.push(env.HOOKSTREAM_JAVA_HOME);
  if (env.JAVA_HOME) homes.push(env.JAVA_HOME);
  try {
    const { stdout } = await run('sh', ['-c', 'readlink -f "$(command -v java)"'], { timeout: 5000 });
    const resolved = stdout.trim();
    if (resolved) homes.push(path.dirname(path.dirname(resolved)));
  } catch {
    // no java on PATH
  }
  for (const root of ['/usr/lib/jvm', '/usr/local/lib/jvm', '/opt/java', '/opt']) {
    try {
      for (const entry of readdirSync(root)) homes.push(path.join(root, entry));
    } catch {
      // folder absent
    }
  }
  // Normalised ("/opt/jdk/" and "/opt/jdk" are one home), so duplicates fold and lookups match.
  return [...new Set(homes.map((home) => path.resolve(home)))];
}

/** Every JDK found on this machine, newest first. */
export async function findJavaRuntimes(env: NodeJS.ProcessEnv = process.env): Promise<JavaRuntime[]> {
  const found = (await Promise.all((await candidateHomes(env)).map(inspect))).filter((r): r is JavaRuntime => r !== undefined);
  const unique = new Map(found.map((r) => [r.executable, r]));
  return [...unique.values()].sort((a, b) => b.major - a.major);
}

/**
 * The JDK to run `what` with: HOOKSTREAM_JAVA_HOME if set (it must qualify), else the newest
 * found at or above `minMajor`. Throws a StackError that says what is missing and how to fix it.
 */
export async function requireJava(minMajor: number, what: string, env: NodeJS.ProcessEnv = process.env): Promise<JavaRuntime> {
  if (env.HOOKSTREAM_JAVA_HOME) {
    const chosen = await inspect(path.resolve(env.HOOKSTREAM_JAVA_HOME));
    if (chosen && chosen.major >= minMajor) return chosen;
    throw new StackError(
      `HOOKSTREAM_JAVA_HOME=${env.HOOKSTREAM_JAVA_HOME} is ${chosen ? `Java ${chosen.major}` : 'not a JDK'}; ${what} needs Java ${minMajor} or newer.`,
    );
  }
  const runtimes = await findJavaRuntimes(env);
  const suitable = runtimes.find((r) => r.major >= minMajor);
  if (suitable) return suitable;
  const seen = runtimes.length > 0 ? runtimes.map((r) => `Java ${r.major} at ${r.home}`).join(', ') : 'no JDK at all';
  throw new StackError(
    `${what} needs Java ${minMajor} or newer, but this machine has ${seen}. ` +
      `Install a JDK ${minMajor}+ (for example Temurin 21 or 25) and, if it is not under /usr/lib/jvm, set HOOKSTREAM_JAVA_HOME to its home.`,
  );
}
