import { chooseChromium, installChromiumWithApt, type AptGet, type ChromiumFacts } from '../../src/stack/chromium-plan';

/** A machine with no Chromium, as root with apt-get, where an install is allowed. */
const bare: ChromiumFacts = { override: undefined, overrideRuns: false, installed: undefined, root: true, aptGet: true, mayInstall: true };

describe('chooseChromium', () => {
  test('when HOOKSTREAM_CHROMIUM names an executable, then it wins over an installed chromium', () => {
    expect(chooseChromium({ ...bare, override: '/opt/chrome/chrome', overrideRuns: true, installed: '/usr/bin/chromium' })).toEqual({
      kind: 'use',
      path: '/opt/chrome/chrome',
    });
  });

  test('when HOOKSTREAM_CHROMIUM names no executable, then it is refused rather than another browser used', () => {
    const choice = chooseChromium({ ...bare, override: '/nowhere/chromium', installed: '/usr/bin/chromium' });
    expect(choice).toEqual({
      kind: 'refuse',
      reason: expect.stringMatching(/^HOOKSTREAM_CHROMIUM=\/nowhere\/chromium is not an executable/),
    });
  });

  test('when a chromium is installed, then it is used, root or not', () => {
    for (const root of [true, false]) {
      expect(chooseChromium({ ...bare, root, installed: '/usr/bin/chromium' })).toEqual({ kind: 'use', path: '/usr/bin/chromium' });
    }
  });

  test('when none is installed, then root with apt-get installs it', () => {
    expect(chooseChromium(bare)).toEqual({ kind: 'install' });
  });

  test('when none is installed and the caller may not install, then the refusal says the install command', () => {
    expect(chooseChromium({ ...bare, mayInstall: false })).toEqual({
      kind: 'refuse',
      reason: expect.stringContaining('apt-get install chromium'),
    });
  });

  test('when none is installed and not root, then the refusal says to install with sudo or set HOOKSTREAM_CHROMIUM', () => {
    const choice = chooseChromium({ ...bare, root: false });
    expect(choice).toEqual({ kind: 'refuse', reason: expect.stringContaining('sudo apt-get install chromium') });
    expect(choice).toEqual({ kind: 'refuse', reason: expect.stringContaining('HOOKSTREAM_CHROMIUM') });
  });

  test('when none is installed and there is no apt-get, then the refusal says to set HOOKSTREAM_CHROMIUM, even as root', () => {
    const choice = chooseChromium({ ...bare, aptGet: false });
    expect(choice).toEqual({
      kind: 'refuse',
      reason: expect.stringContaining("this machine's package manager and set HOOKSTREAM_CHROMIUM"),
    });
  });
});

describe('installChromiumWithApt', () => {
  const INSTALL = ['install', '-y', '--no-install-recommends', 'chromium'];
  /** An apt-get answering each call in turn, recording the arguments. */
  const scriptedApt = (...answers: Array<{ ok: boolean; output: string }>) => {
    const calls: string[][] = [];
    const aptGet: AptGet = async (args) => {
      calls.push(args);
      const answer = answers.shift();
      if (!answer) throw new Error(`unexpected apt-get ${args.join(' ')}`);
      return answer;
    };
    return { calls, aptGet };
  };

  test('when the package lists know chromium, then it is installed without an update', async () => {
    const apt = scriptedApt({ ok: true, output: 'Setting up chromium' });
    await installChromiumWithApt(apt.aptGet);
    expect(apt.calls).toEqual([INSTALL]);
  });

  test('when apt-get cannot locate the package, then the lists are updated and the install tried again', async () => {
    const apt = scriptedApt(
      { ok: false, output: 'E: Unable to locate package chromium' },
      { ok: true, output: 'Reading package lists... Done' },
      { ok: true, output: 'Setting up chromium' },
    );
    await installChromiumWithApt(apt.aptGet);
    expect(apt.calls).toEqual([INSTALL, ['update'], INSTALL]);
  });

  test('when the update fails, then the error says so with its output, and no second install is tried', async () => {
    const apt = scriptedApt(
      { ok: false, output: 'E: Unable to locate package chromium' },
      { ok: false, output: 'W: Failed to fetch http://deb.debian.org' },
    );
    await expect(installChromiumWithApt(apt.aptGet)).rejects.toThrow(/apt-get update failed:\nW: Failed to fetch/);
    expect(apt.calls).toEqual([INSTALL, ['update']]);
  });

  test('when the install fails for another reason, then no update is tried and the error carries the output', async () => {
    const apt = scriptedApt({ ok: false, output: 'E: Could not get lock /var/lib/dpkg/lock-frontend' });
    await expect(installChromiumWithApt(apt.aptGet)).rejects.toThrow(/apt-get install chromium failed:\nE: Could not get lock/);
    expect(apt.calls).toEqual([INSTALL]);
  });

  test('when the install still fails after the update, then that failure is the error', async () => {
    const apt = scriptedApt(
      { ok: false, output: "E: Package 'chromium' has no installation candidate" },
      { ok: true, output: '' },
      { ok: false, output: 'E: Unable to locate package chromium' },
    );
    await expect(installChromiumWithApt(apt.aptGet)).rejects.toThrow(
      /apt-get install chromium failed:\nE: Unable to locate package chromium/,
    );
    expect(apt.calls).toEqual([INSTALL, ['update'], INSTALL]);
  });
});
