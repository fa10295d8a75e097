/*
 * Which Chromium the browser tests drive, and how Debian's gets installed when there is none: the
 * decisions only, over facts and an apt-get runner handed in, so they are tested without a machine
 * to install on (chromium.ts gathers the facts and runs the commands).
 */
import { StackError } from '@hookstream/errors';

/** Where Debian's chromium package puts the browser. */
export const DEBIAN_CHROMIUM = '/usr/bin/chromium';

export interface ChromiumFacts {
  /** HOOKSTREAM_CHROMIUM, when set. */
  override: string | undefined;
  /** Whether the override is an executable file. */
  overrideRuns: boolean;
  /** An installed chromium: /usr/bin/chromium, else the one on PATH. */
  installed: string | undefined;
  root: boolean;
  aptGet: boolean;
  /** False for callers that only look (installing is left to one place, once). */
  mayInstall: boolean;
}

export type ChromiumChoice = { kind: 'use'; path: string } | { kind: 'install' } | { kind: 'refuse'; reason: string };

/** The explicit override, else what is installed, else an install with apt-get as root, else what to do. */
export function chooseChromium(facts: ChromiumFacts): ChromiumChoice {
  if (facts.override !== undefined) {
    // A wrong override is an error, not a reason to pick another browser than the one asked for.
    return facts.overrideRuns
      ? { kind: 'use', path: facts.override }
      : {
          kind: 'refuse',
          reason: `HOOKSTREAM_CHROMIUM=${facts.override} is not an executable file: point it at a Chromium binary, or unset it`,
        };
  }
  if (facts.installed) return { kind: 'use', path: facts.installed };
  const missing = `no Chromium found (HOOKSTREAM_CHROMIUM unset, no ${DEBIAN_CHROMIUM}, no chromium on PATH)`;
  if (!facts.aptGet) {
    return {
      kind: 'refuse',
      reason: `${missing}: install Chromium with this machine's package manager and set HOOKSTREAM_CHROMIUM to its binary`,
    };
  }
  if (!facts.root) {
    return {
      kind: 'refuse',
      reason: `${missing}: install Debian's chromium (sudo apt-get install chromium) or set HOOKSTREAM_CHROMIUM to a Chromium binary`,
    };
  }
  if (!facts.mayInstall) {
    return { kind: 'refuse', reason: `${missing}: install it (apt-get install chromium) or set HOOKSTREAM_CHROMIUM to a Chromium binary` };
  }
  return { kind: 'install' };
}

/** Runs apt-get with these arguments; `output` is what it printed. */
export type AptGet = (args: string[]) => Promise<{ ok: boolean; output: string }>;

const INSTALL = ['install', '-y', '--no-install-recommends', 'chromium'];
/** What apt-get says when its package lists are missing or predate the package (a fresh container has none). */
const LISTS_LACK_IT = /Unable to locate package|has no installation candidate/;

/** Installs Debian's chromium; when the package lists do not know it, updates them once and tries again. */
export async function installChromiumWithApt(aptGet: AptGet): Promise<void> {
  const first = await aptGet(INSTALL);
  if (first.ok) return;
  if (!LISTS_LACK_IT.test(first.output)) throw aptFailed('install chromium', first.output);
  const update = await aptGet(['update']);
  if (!update.ok) throw aptFailed('update', update.output);
  const second = await aptGet(INSTALL);
  if (!second.ok) throw aptFailed('install chromium', second.output);
}

function aptFailed(command: string, output: string): StackError {
  const tail = output.trimEnd().split('\n').slice(-10).join('\n');
  // Mostly the network or a mirror: the same command may work a moment later.
  return new StackError(`apt-get ${command} failed${tail ? `:\n${tail}` : ''}`, { retryable: true });
}
