/*
 * A real browser for the `browser` jest project (files named *.browser.int.test.ts): Debian's
 * chromium, driven by playwright-core. The project's global setup (test/global-setup/browser.ts)
 * installs chromium once before the first browser test; here it is only looked for, so a failed
 * install is not tried again in every file.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { ensureChromium } from '@hookstream/cli/stack';
import { chromium, type Browser, type BrowserContextOptions, type ConsoleMessage, type Page } from 'playwright-core';

/** The two sizes pages are checked at: a laptop screen, and a phone held upright (touch, the page's meta viewport honoured). */
export const DEVICES = {
  desktop: { viewport: { width: 1280, height: 800 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
} satisfies Record<string, BrowserContextOptions>;

export type Device = keyof typeof DEVICES;

/**
 * Where screenshots go: docs/console/<name>.png, linked from docs/console.md and committed. Each run
 * overwrites them, so they change in a commit whenever the pages they show change; review them
 * like the code.
 */
export const SCREENSHOT_DIR = path.resolve(__dirname, '..', '..', 'docs', 'console');

/** A page, and what went wrong in it since it opened. */
export interface WatchedPage {
  page: Page;
  /** Console errors (a CSP violation is one), uncaught script errors and failed requests, in order. */
  problems: string[];
  /** Fails the test, listing them, when there was any. */
  assertNoPageErrors: () => void;
}

export interface TestBrowser {
  /** A page in a context of its own (no cookies or storage shared), relative URLs taken from `baseUrl`. */
  newPage: (baseUrl: string, device?: Device) => Promise<WatchedPage>;
  close: () => Promise<void>;
}

/** One headless chromium for a test file: open it in beforeAll, close it in afterAll. */
export async function openBrowser(): Promise<TestBrowser> {
  const { path: executablePath } = await ensureChromium(process.env, { install: false });
  // Chromium refuses to start as root with its sandbox on ("Running as root without --no-sandbox is not supported").
  const args = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  const browser = await chromium.launch({ executablePath, headless: true, args });
  return {
    newPage: async (baseUrl, device = 'desktop') => watch(await newContextPage(browser, baseUrl, device)),
    close: () => browser.close(),
  };
}

async function newContextPage(browser: Browser, baseUrl: string, device: Device): Promise<Page> {
  // One device pixel per CSS pixel, so a screenshot has the viewport's size whatever the machine.
  const context = await browser.newContext({ ...DEVICES[device], deviceScaleFactor: 1, baseURL: baseUrl });
  return context.newPage();
}

function watch(page: Page): WatchedPage {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error' || isOwnFaviconLookup(message)) return;
    // "Failed to load resource" does not say which: the location does.
    const where = message.location().url;
    problems.push(`console error: ${message.text()}${where ? ` (${where})` : ''}`);
  });
  page.on('pageerror', (error) => problems.push(`script error: ${error.message}`));
  page.on('requestfailed', (request) => {
    const why = request.failure()?.errorText ?? 'unknown';
    // Cancelled by the browser itself: the test navigated while a fetch of the page before was in
    // flight (a loaded CI machine answered one late: console-quality failed so). A failure the page
    // sees still shows as its own console or script error.
    if (why === 'net::ERR_ABORTED') return;
    problems.push(`request failed: ${request.method()} ${request.url()}: ${why}`);
  });
  return { page, problems, assertNoPageErrors: () => expect(problems).toEqual([]) };
}

/**
 * Chromium asks the origin for /favicon.ico on its own when a page declares no icon, and logs the
 * 404 as the page's console error: a JSON answer such as /healthz would otherwise fail. (A missing
 * /favicon.ico that a page does declare passes unnoticed too.)
 */
function isOwnFaviconLookup(message: ConsoleMessage): boolean {
  const { url } = message.location();
  return url !== '' && new URL(url).pathname === '/favicon.ico';
}

/** Saves what the page shows now as <dir>/<name>.png (docs/console unless told otherwise); returns its path. */
export async function screenshot(page: Page, name: string, dir = SCREENSHOT_DIR): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}
