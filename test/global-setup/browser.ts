/*
 * Global setup of the `browser` jest project, which jest runs only when the run includes a browser
 * test: installs chromium, when missing, once before any of them (test workers run files in
 * parallel, and two apt-get installs at once would collide). Should that fail, it says why and the
 * run goes on: the browser tests then fail, saying what to install, and every other test still runs.
 */
import { ensureChromium } from '@hookstream/cli/stack';

export default async function installChromium(): Promise<void> {
  const say = (line: string) => process.stderr.write(`browser tests: ${line}\n`);
  try {
    await ensureChromium(process.env, { say });
  } catch (error) {
    say(`no chromium: ${(error as Error).message}`);
  }
}
