/**
 * The browser harness end to end, before there is a console to test with it: Debian's chromium
 * opens the delivery log's own answers at both sizes, screenshots have the viewport's size, and
 * what a console page must never do (a script its CSP refuses, an uncaught error, a request that
 * fails) fails assertNoPageErrors.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@hookstream/runtime';
import type { Page } from 'playwright-core';
import { OutboundFixture } from '../../../test/helpers/outbound-fixture';
import { DELIVERY_LOG_ENTRY, startService, type RunningService } from '../../../test/helpers/outbound';
import { DEVICES, openBrowser, screenshot, type TestBrowser } from '../../../test/helpers/browser';
import { freshStateDatabase, stopStateServer, type StateDatabase } from '../../../test/helpers/state-database';

let fixture: OutboundFixture;
let log: RunningService;
let browser: TestBrowser;
let logDatabase: StateDatabase | undefined;
let shotsDir: string;

beforeAll(async () => {
  fixture = await OutboundFixture.open('browser-smoke');
  logDatabase = await freshStateDatabase();
  shotsDir = mkdtempSync(path.join(os.tmpdir(), 'hookstream-screenshots-'));
  [log, browser] = await Promise.all([
    startService(DELIVERY_LOG_ENTRY, fixture.prefix, { ...fixture.env, DELIVERY_LOG_DATABASE_URL: logDatabase.url, HTTP_PORT: '0' }),
    openBrowser(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await log?.stop();
  await fixture?.close();
  if (shotsDir) rmSync(shotsDir, { recursive: true, force: true });
  await logDatabase?.drop();
  await stopStateServer();
});

/** The JSON a page shows: Chromium puts a JSON answer's text in a <pre>. */
const shownJson = async (page: Page): Promise<unknown> => JSON.parse(await page.locator('pre').first().innerText());

/** Width and height from a PNG's IHDR chunk. */
const pngSize = (file: string) => {
  const png = readFileSync(file);
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
};

test('/healthz shows the service alive, with no page error', async () => {
  // On the ops port: the API's port serves no ops route (docs/operations.md).
  const { page, assertNoPageErrors } = await browser.newPage(log.opsUrl);
  const response = await page.goto('/healthz');
  expect(response?.status()).toBe(200);
  expect(await shownJson(page)).toEqual({ status: 'alive' });
  assertNoPageErrors();
});

test('/openapi.json shows the delivery log API document, at both sizes, and screenshots have the viewport size', async () => {
  for (const device of ['desktop', 'phone'] as const) {
    const { page, assertNoPageErrors } = await browser.newPage(log.url, device);
    await page.goto('/openapi.json');
    const document = (await shownJson(page)) as { openapi: string; info: { title: string }; paths: Record<string, unknown> };
    expect(document.openapi).toMatch(/^3\./);
    expect(document.info.title).toBe('Hookstream delivery log: partner and operator APIs');
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/api/portal/v1/deliveries', '/api/admin/v1/partners']));
    const file = await screenshot(page, `openapi-${device}`, shotsDir);
    expect(pngSize(file)).toEqual(DEVICES[device].viewport);
    assertNoPageErrors();
  }
});

test('a script the page CSP refuses does not run, and fails assertNoPageErrors', async () => {
  const { page, assertNoPageErrors } = await browser.newPage(log.opsUrl);
  await page.goto('/healthz');
  assertNoPageErrors();
  await page.setContent(
    `<!doctype html><meta http-equiv="Content-Security-Policy" content="script-src 'none'">` +
      `<title>before</title><script>document.title = 'ran'</script>`,
  );
  expect(await page.title()).toBe('before');
  expect(assertNoPageErrors).toThrow(/inline script violates the following Content Security Policy directive 'script-src 'none''/);
});

test('an uncaught script error and a request that fails both fail assertNoPageErrors', async () => {
  const { page, problems, assertNoPageErrors } = await browser.newPage(log.opsUrl);
  await page.goto('/healthz');
  const closed = `http://127.0.0.1:${await freePort()}/missing.png`;
  await page.setContent(`<!doctype html><script>throw new Error('boom in the page')</script><img src="${closed}">`);
  expect(problems).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/^script error: boom in the page/),
      `request failed: GET ${closed}: net::ERR_CONNECTION_REFUSED`,
    ]),
  );
  expect(assertNoPageErrors).toThrow(/boom in the page/);
});
