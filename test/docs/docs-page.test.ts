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
import { CDS_SERVICE_ID } from '../../examples/demo/cds.js';
import { SUMMARY_EXTENSION_URL } from '../../examples/demo/handlers.js';
import { curlToFetch } from '../support/demo-process.js';
import { startDemo } from '../../examples/demo/start-demo.js';
import { captureLogger } from '../support/logger.js';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
/** Safety nets only. */
const BROWSER_TIMEOUT_MS = 60_000;
const SCREENSHOT = join(tmpdir(), 'fhirgate-docs-page.png');
const SCREENSHOT_PHONE = join(tmpdir(), 'fhirgate-docs-page-390.png');

const skip = !existsSync(CHROMIUM) && process.env.CI === undefined
  ? `${CHROMIUM} is not installed (apt-get install chromium); CI installs it and runs this test`
  : false;

interface Operation {
  method: string;
  path: string;
}

test('/docs in Chromium: every operation with responses and examples, pre-filled forms that work, copy as curl, no other host', { skip }, async (t) => {
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

  // Every operation shows its responses, each with a body example (the document's or one generated from the schema).
  const responses = await page.locator('details.op').evaluateAll((ops) => ops.map((op) => ({
    op: `${op.getAttribute('data-method')} ${op.getAttribute('data-path')}`,
    rows: [...op.querySelectorAll('.responses .resp')].map((r) => ({
      status: r.getAttribute('data-status'),
      types: r.querySelectorAll('.ctype').length,
      examples: r.querySelectorAll('pre.example').length,
      firstExample: r.querySelector('pre.example')?.textContent ?? '',
      schemas: r.querySelectorAll('details.schema').length,
      noBody: r.querySelector('.label')?.textContent === 'no body',
    })),
  })));
  for (const { op, rows } of responses) {
    assert.ok(rows.length > 0, `${op} lists its responses`);
    assert.ok(rows.some((r) => /^2/.test(r.status ?? '') && (r.noBody || (r.examples > 0 && !['{}', '"string"', 'string', 'null'].includes(r.firstExample.trim())))), `${op} has a telling example success answer: ${JSON.stringify(rows)}`);
    for (const r of rows) assert.ok(r.noBody || r.examples > 0 || r.types > 0, `${op} ${r.status}`);
  }
  const documented = Object.values(doc.paths).flatMap((item) => Object.values(item) as Array<{ responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>);
  const withSchemas = documented.reduce((n, o) => n + Object.values(o.responses).reduce((m, r) => m + Object.values(r.content ?? {}).filter((c) => c.schema !== undefined).length, 0), 0);
  assert.equal(responses.reduce((n, o) => n + o.rows.reduce((m, r) => m + r.schemas, 0), 0), withSchemas, 'every response schema of the document is shown');

  // The transform form is pre-filled with ids the demo has: Send as it is.
  const op = page.locator('details.op[data-method="GET"][data-path="/fhir/transform/Patient/{id}"]');
  await op.locator(':scope > summary').click();
  assert.equal(await op.locator('input[name="path:id"]').inputValue(), 'a-patient-1');
  assert.equal(await op.locator('input[name="query:source"]').inputValue(), 'ehr-a');
  await op.getByRole('button', { name: 'Send' }).click();
  const status = op.locator('.out .status');
  await status.waitFor();
  assert.match(await status.textContent() ?? '', /^200 OK · \d+ ms · GET \/fhir\/transform\/Patient\/a-patient-1\?source=ehr-a$/);
  const shown = JSON.parse(await op.locator('.out pre').textContent() ?? '') as { id: string; extension?: { url: string }[] };
  assert.equal(shown.id, 'a-patient-1');
  assert.ok(shown.extension?.some((e) => e.url === SUMMARY_EXTENSION_URL), 'the resource shown has the summary extension');

  // Copy as curl gives the request just built; run as curl would, it answers the same.
  await op.getByRole('button', { name: 'Copy as curl' }).click();
  const command = await op.locator('pre.curl').textContent() ?? '';
  assert.equal(command, `curl -s '${demo.origin}/fhir/transform/Patient/a-patient-1?source=ehr-a'`);
  const cds = page.locator(`details.op[data-method="POST"][data-path="/cds/cds-services/${CDS_SERVICE_ID}"]`);
  await cds.locator(':scope > summary').click();
  await cds.getByRole('button', { name: 'Copy as curl' }).click();
  const cdsCurl = curlToFetch(await cds.locator('pre.curl').textContent() ?? '');
  assert.equal(cdsCurl.init.method, 'POST');
  const cdsAnswer = (await (await fetch(cdsCurl.url, cdsCurl.init)).json()) as { cards: Array<{ summary: string }> };
  assert.match(cdsAnswer.cards[0]?.summary ?? '', /^Peter James Chalmers: \d+ active problem\(s\)/, 'the pre-filled CDS body names a patient the demo has');

  // Every pre-filled form answers 2xx when sent as it is.
  const failures: string[] = [];
  for (const { op: name } of responses) {
    const [method, path] = name.split(' ');
    const form = page.locator(`details.op[data-method="${method}"][data-path="${path}"]`);
    if (!(await form.evaluate((d) => d.hasAttribute('open')))) await form.locator(':scope > summary').click();
    await form.locator('.out').evaluate((o) => o.replaceChildren());
    await form.getByRole('button', { name: 'Send' }).click();
    const text = await form.locator('.out .status').textContent() ?? '';
    if (!/^2\d\d /.test(text)) failures.push(`${name}: ${text} ${(await form.locator('.out pre').textContent().catch(() => '')) ?? ''}`.slice(0, 300));
  }
  assert.deepEqual(failures, [], 'every pre-filled form works as it is');
  await page.screenshot({ path: SCREENSHOT, fullPage: true });

  // The answer's headers are shown: X-Request-ID always, Location for the demo's create.
  const create = page.locator('details.op[data-method="POST"][data-path="/demo/{source}/Patient"]');
  const shownHeaders = await create.locator('.out dl.headers dt').allTextContents();
  assert.ok(shownHeaders.includes('location') && shownHeaders.includes('x-request-id'), `headers shown after Send: ${shownHeaders.join(', ')}`);
  const declared = await create.locator('.resp[data-status="201"] dl.headers dt').allTextContents();
  assert.deepEqual(declared.sort(), ['Location', 'X-Request-ID'], 'the documented headers of the 201 answer');
  assert.deepEqual(await op.locator('.resp[data-status="200"] dl.headers dt').allTextContents(), ['X-Request-ID']);

  // A required parameter left empty: named on the form, nothing sent.
  const before = requested.length;
  await op.locator('input[name="path:id"]').fill('');
  await op.getByRole('button', { name: 'Send' }).click();
  assert.equal(await op.locator('.out .status').textContent(), 'Required: id');
  assert.equal(await op.locator('input[name="path:id"]').getAttribute('aria-invalid'), 'true');
  await op.locator('button.copy-curl').click(); // its label says "Copied" since the first copy
  assert.equal(await op.locator('.out .status').textContent(), 'Required: id');
  assert.equal(requested.length, before, 'no request was sent');

  // At 390 px (a phone) no card is wider than the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  const overflowing = await page.locator('details.op').evaluateAll((ops) =>
    ops.filter((o) => o.scrollWidth > o.clientWidth + 1 || o.getBoundingClientRect().right > 391).map((o) => `${o.getAttribute('data-method')} ${o.getAttribute('data-path')}`));
  assert.deepEqual(overflowing, [], 'cards that overflow at 390 px');
  assert.ok(await page.locator('html').evaluate((html) => html.scrollWidth <= 390), 'the page does not scroll sideways at 390 px');
  await page.screenshot({ path: SCREENSHOT_PHONE, fullPage: true });

  // A deep link opens its operation.
  const transformId = 'AsyncFHIRGateway_transform_Patient';
  await page.goto(`${demo.origin}/docs#${transformId}`);
  const linked = page.locator(`details.op#${transformId}`);
  await linked.waitFor();
  assert.equal(await linked.evaluate((d) => d.hasAttribute('open')), true, 'the linked operation is open');
  // Opening another operation puts its link in the address bar (read from outside the page: its CSP
  // refuses the eval that Playwright's waitForFunction needs).
  const other = page.locator(`details.op[id]:not(#${transformId})`).first();
  const otherId = await other.getAttribute('id');
  await other.evaluate((d) => d.removeAttribute('open')); // the test opened every operation above
  await other.locator('summary').first().click();
  for (let i = 0; i < 50 && !page.url().endsWith(`#${otherId}`); i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(new URL(page.url()).hash, `#${otherId}`, 'the address bar links to the operation just opened');
  assert.deepEqual(pageErrors, [], 'no script error or CSP violation on the page');
  assert.ok(requested.length >= 3, `the page, openapi.json and the transform were requested: ${requested.join(', ')}`);
  const elsewhere = requested.filter((url) => new URL(url).origin !== demo.origin);
  assert.deepEqual(elsewhere, [], 'every request goes to the app\'s own origin');
});
