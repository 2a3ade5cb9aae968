/**
 * The `/docs` page of the running demo in a real browser (Debian's Chromium through playwright-core):
 * every operation of `/openapi.json` is listed, a transform request filled in and sent from the page
 * shows status 200 and the enriched resource, and the page talks to no other host.
 *
 * Without `/usr/bin/chromium` the test is skipped, except in CI (`CI` set), where it must run.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { chromium, type BrowserContext } from 'playwright-core';
import { SUMMARY_EXTENSION_URL } from '../../examples/demo/handlers.js';
import { startDemo } from '../../examples/demo/start-demo.js';
import { captureLogger } from '../host/helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
/** Safety nets only. */
const BROWSER_TIMEOUT_MS = 60_000;
const SCREENSHOT = join(tmpdir(), 'fhirgate-docs-page.png');

const skip = !existsSync(CHROMIUM) && process.env.CI === undefined
  ? `${CHROMIUM} is not installed (apt-get install chromium); CI installs it and runs this test`
  : false;

interface Operation {
  method: string;
  path: string;
}

test('/docs in Chromium: lists every operation, sends a transform from the page, talks to no other host', { skip }, async (t) => {
  const demo = await startDemo({ port: 0, logger: captureLogger() });
  const profile = mkdtempSync(join(tmpdir(), 'fhirgate-chromium-'));
  // One hook, in this order: the browser first (it writes into its profile until it exits), then its
  // profile, then the demo.
  let context: BrowserContext | undefined;
  t.after(async () => {
    try {
      await context?.close();
    } finally {
      rmSync(profile, { recursive: true, force: true });
      await demo.close();
    }
  });
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    timeout: BROWSER_TIMEOUT_MS,
  });
  const page = context.pages()[0] ?? await context.newPage();
  page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
  const requested: string[] = [];
  page.on('request', (request) => void requested.push(request.url()));
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => void pageErrors.push(error.message));
  page.on('console', (message) => {
    // The browser's own /favicon.ico probe (the page declares no icon) answers 404; that is not the page's doing.
    if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')) pageErrors.push(`${message.text()} (${message.location().url})`);
  });

  await page.goto(`${demo.origin}/docs`);
  const doc = await (await fetch(`${demo.origin}/openapi.json`)).json() as { paths: Record<string, Record<string, unknown>> };
  const expected: Operation[] = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((method) => ({ method, path })));
  await page.locator('details.op').nth(expected.length - 1).waitFor();
  const listed = await page.locator('details.op > summary').evaluateAll((summaries) => summaries.map((s) => ({
    method: s.querySelector('.method')?.textContent ?? '',
    path: s.querySelector('.path')?.textContent ?? '',
  })));
  const key = (o: Operation): string => `${o.method.toLowerCase()} ${o.path}`;
  assert.deepEqual(listed.map(key).sort(), expected.map(key).sort());

  const op = page.locator('details.op', { has: page.locator('.path', { hasText: /^\/fhir\/transform\/Patient\/\{id\}$/ }) });
  await op.locator(':scope > summary').click();
  await op.locator('input[name="path:id"]').fill('a-patient-1');
  await op.locator('input[name="query:source"]').fill('ehr-a');
  await op.getByRole('button', { name: 'Send' }).click();
  const status = op.locator('.out .status');
  await status.waitFor();
  assert.match(await status.textContent() ?? '', /^200 OK · \d+ ms · GET \/fhir\/transform\/Patient\/a-patient-1\?source=ehr-a$/);
  const shown = JSON.parse(await op.locator('.out pre').textContent() ?? '') as { id: string; extension?: { url: string }[] };
  assert.equal(shown.id, 'a-patient-1');
  assert.ok(shown.extension?.some((e) => e.url === SUMMARY_EXTENSION_URL), 'the resource shown has the summary extension');

  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  assert.deepEqual(pageErrors, [], 'no script error or CSP violation on the page');
  assert.ok(requested.length >= 3, `the page, openapi.json and the transform were requested: ${requested.join(', ')}`);
  const elsewhere = requested.filter((url) => new URL(url).origin !== demo.origin);
  assert.deepEqual(elsewhere, [], 'every request goes to the app\'s own origin');
});
