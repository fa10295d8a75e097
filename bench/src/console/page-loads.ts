/**
 * Loads of the console in a real Chromium (Debian's, driven by playwright-core as the browser tests
 * do), each in a fresh browser context: no cache, cookies or connections from an earlier load, as a
 * partner opening the console in a new window. The context is signed in before the clock starts,
 * so a load is the navigation alone: the page, its script and stylesheet, GET /console/session, the
 * first page of deliveries, and rendering it.
 */
import { performance } from 'node:perf_hooks';
import { ensureChromium } from '@hookstream/cli/stack';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** The rows of the deliveries table (services/delivery-log/console/src/pages/deliveries.tsx). */
const ROWS = '.table-wrap table tbody tr';
/** The first view asks for 50 deliveries (limit=50): the load is done once all of them show. */
export const ROWS_SHOWN = 50;
/** A load that takes longer has failed (a wrong selector or a page that never renders must not hang the bench). */
const LOAD_TIMEOUT_MS = 30_000;

/** One load's times (ms): from the bench's goto, and in the page from its navigation's start. */
export interface ConsoleLoad {
  /** page.goto → the 50th row visible, as the bench saw it (includes driving the browser over CDP). */
  visible: number;
  domContentLoaded: number;
  /** GET /console/session and the deliveries' first page answered (their responseEnd). */
  sessionAnswered: number;
  deliveriesAnswered: number;
  /** The 50th row inserted into the document (a MutationObserver), before the frame that paints it. */
  rowsInDom: number;
}

// In-page code as source text: the bench is compiled without the DOM's types, and the page's strict
// CSP does not apply to scripts the browser is given by its driver.
const MARK_ROWS = `
  new MutationObserver((_, observer) => {
    if (document.querySelectorAll(${JSON.stringify(ROWS)}).length < ${ROWS_SHOWN}) return;
    window.__rowsInDom = performance.now();
    observer.disconnect();
  }).observe(document, { childList: true, subtree: true });`;
const READ_TIMINGS = `(() => {
  const answered = (path) => performance.getEntriesByType('resource').find((e) => new URL(e.name).pathname === path)?.responseEnd;
  return {
    domContentLoaded: performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd,
    sessionAnswered: answered('/console/session'),
    deliveriesAnswered: answered('/api/portal/v1/deliveries'),
    rowsInDom: window.__rowsInDom,
  };
})()`;

export class ConsoleBrowser {
  private constructor(private readonly browser: Browser) {}

  /** Starts headless Chromium (HOOKSTREAM_CHROMIUM, else /usr/bin/chromium or one on PATH; never installs it). */
  static async launch(): Promise<ConsoleBrowser> {
    const { path: executablePath } = await ensureChromium(process.env, { install: false });
    // Chromium refuses to start as root with its sandbox on.
    const args = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
    return new ConsoleBrowser(await chromium.launch({ executablePath, headless: true, args }));
  }

  get version(): string {
    return this.browser.version();
  }

  /** One load of `/console/#/deliveries` for the partner whose API key is `apiKey`, in a fresh context. */
  async consoleLoad(baseUrl: string, apiKey: string): Promise<ConsoleLoad> {
    return this.inFreshContext(baseUrl, true, async (context, page) => {
      // context.request shares the context's cookies: the session cookie is the browser's from here on.
      const signIn = await context.request.post('/console/session', { data: { api_key: apiKey } });
      if (signIn.status() !== 201) throw new Error(`POST /console/session answered ${signIn.status()}: ${await signIn.text()}`);
      await page.addInitScript({ content: MARK_ROWS });
      const started = performance.now();
      await page.goto('/console/#/deliveries', { waitUntil: 'commit' });
      await page
        .locator(ROWS)
        .nth(ROWS_SHOWN - 1)
        .waitFor({ state: 'visible', timeout: LOAD_TIMEOUT_MS });
      const visible = performance.now() - started;
      const inPage = await page.evaluate<Omit<ConsoleLoad, 'visible'>>(READ_TIMINGS);
      return { visible, ...inPage };
    });
  }

  /** One load of the console's page with scripts off (its HTML and stylesheet only), until its load event: ms. */
  async shellLoad(baseUrl: string): Promise<number> {
    return this.inFreshContext(baseUrl, false, async (_context, page) => {
      const started = performance.now();
      await page.goto('/console/', { waitUntil: 'load', timeout: LOAD_TIMEOUT_MS });
      return performance.now() - started;
    });
  }

  close(): Promise<void> {
    return this.browser.close();
  }

  /**
   * Runs `load` on a new page of a new context, then closes it; fails when the page logged an error,
   * threw or had a request fail (a load that went wrong must not be timed as one that worked).
   */
  private async inFreshContext<T>(
    baseUrl: string,
    javaScriptEnabled: boolean,
    load: (context: BrowserContext, page: Page) => Promise<T>,
  ): Promise<T> {
    const context = await this.browser.newContext({
      baseURL: baseUrl,
      viewport: { width: 1280, height: 800 },
      deviceScaleFactor: 1,
      javaScriptEnabled,
    });
    try {
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (m) => {
        // Chromium asks for /favicon.ico on its own when a page declares no icon (the console's is inline) and logs its 404 as an error.
        const where = m.location().url;
        if (m.type() === 'error' && !(where && new URL(where).pathname === '/favicon.ico')) problems.push(`console error: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`script error: ${e.message}`));
      page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}: ${r.failure()?.errorText ?? 'unknown'}`));
      const result = await load(context, page);
      if (problems.length > 0) throw new Error(`the page went wrong:\n  ${problems.join('\n  ')}`);
      return result;
    } finally {
      await context.close();
    }
  }
}
