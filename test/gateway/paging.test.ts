import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import type { Bundle, Patient } from '../../src/fhir/index.js';
import { sandbox } from '../support/sandbox.js';
import { gateway, settle } from '../support/gateway-fixtures.js';

/** What a fake server saw: the request URL and its Authorization header. */
interface Seen {
  url: string;
  authorization: string | undefined;
}

/**
 * A server on its own origin that answers with `answer(url)`; `/token` issues a bearer token.
 * Records every FHIR request.
 */
async function fakeServer(t: TestContext, answer: (url: URL, origin: string) => unknown): Promise<{ origin: string; seen: Seen[]; cs: string }> {
  const seen: Seen[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', origin);
    if (url.pathname === '/token') {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: 'tok-secret', token_type: 'Bearer', expires_in: 300 }));
      return;
    }
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
    res.writeHead(200, { 'content-type': 'application/fhir+json' }).end(JSON.stringify(answer(url, origin)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.after(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  const cs = `fhir://127.0.0.1:${(server.address() as AddressInfo).port}/baseR4/?client_id=app&client_secret=s3cret&token_url=${encodeURIComponent(`${origin}/token`)}`;
  return { origin, seen, cs };
}

const patient = (id: string): Patient => ({ resourceType: 'Patient', id });

/** A searchset page with a match, an include and an outcome entry, and optionally a next link. */
function page(ids: string[], next: string | undefined): Bundle {
  return {
    resourceType: 'Bundle',
    type: 'searchset',
    ...(next === undefined ? {} : { link: [{ relation: 'self', url: 'ignored' }, { relation: 'next', url: next }] }),
    entry: [
      ...ids.map((id) => ({ resource: patient(id), search: { mode: 'match' } })),
      { resource: { resourceType: 'Organization', id: `org-${ids[0]}` }, search: { mode: 'include' } },
      { resource: { resourceType: 'OperationOutcome', issue: [] }, search: { mode: 'outcome' } },
    ],
  } as Bundle;
}

/** HAPI-style paging: the first page is `[base]/Patient?…`, the next ones `[base]?_getpages=…`. */
function hapi(pages: number) {
  return (url: URL, origin: string): Bundle => {
    const offset = url.pathname === '/baseR4/Patient' ? 0 : Number(url.searchParams.get('_getpagesoffset'));
    const n = offset / 2 + 1;
    const next = n < pages ? `${origin}/baseR4?_getpages=8f2c|a&_getpagesoffset=${offset + 2}&_count=2&_bundletype=searchset` : undefined;
    return page([`p${offset + 1}`, `p${offset + 2}`], next);
  };
}

test('pages follows HAPI _getpages links exactly as given, with the token, one search event per page', async (t) => {
  const server = await fakeServer(t, hapi(3));
  const { gw, events } = gateway(t);
  gw.addSource('hapi', server.cs);
  const bundles: Bundle[] = [];
  for await (const b of gw.pages('Patient', { family: 'Doe', _count: 2 }, 'hapi')) bundles.push(b);
  assert.equal(bundles.length, 3);
  assert.deepEqual(server.seen.map((s) => s.url), [
    '/baseR4/Patient?family=Doe&_count=2',
    '/baseR4?_getpages=8f2c|a&_getpagesoffset=2&_count=2&_bundletype=searchset',
    '/baseR4?_getpages=8f2c|a&_getpagesoffset=4&_count=2&_bundletype=searchset',
  ]);
  assert.ok(server.seen.every((s) => s.authorization === 'Bearer tok-secret'));
  await settle();
  const searches = events.filter(([name]) => name === 'fhir.patient.search').map(([, p]) => [p.page, p.result_count, p.source]);
  assert.deepEqual(searches, [[1, 2, 'hapi'], [2, 2, 'hapi'], [3, 2, 'hapi']]);
});

test('searchAll yields only matches across pages and stops at maxResources without fetching further', async (t) => {
  const server = await fakeServer(t, hapi(5));
  const { gw } = gateway(t, { events: false });
  gw.addSource('hapi', server.cs);
  const ids: string[] = [];
  for await (const p of gw.searchAll('Patient', {}, 'hapi')) ids.push(p.id!);
  assert.deepEqual(ids, ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8', 'p9', 'p10']);
  server.seen.length = 0;
  const some: string[] = [];
  for await (const p of gw.searchAll('Patient', {}, 'hapi', { maxResources: 3 })) some.push(p.id!);
  assert.deepEqual(some, ['p1', 'p2', 'p3']);
  assert.equal(server.seen.length, 2, 'the third page is never asked for');
});

test('maxPages stops paging; breaking out of the loop stops fetching', async (t) => {
  const server = await fakeServer(t, hapi(5));
  const { gw } = gateway(t, { events: false });
  gw.addSource('hapi', server.cs);
  let n = 0;
  for await (const _ of gw.pages('Patient', {}, 'hapi', { maxPages: 2 })) n++;
  assert.equal(n, 2);
  assert.equal(server.seen.length, 2);
  server.seen.length = 0;
  for await (const _ of gw.pages('Patient', {}, 'hapi')) break;
  assert.equal(server.seen.length, 1);
  const ids: string[] = [];
  for await (const p of gw.searchAll('Patient', {}, 'hapi', { maxPages: 2, maxResources: 100 })) ids.push(p.id!);
  assert.deepEqual(ids, ['p1', 'p2', 'p3', 'p4']);
});

test('a next link to another origin is ERR_CROSS_ORIGIN and nothing, no token, goes there', async (t) => {
  const other = await fakeServer(t, () => page(['x'], undefined));
  const server = await fakeServer(t, () => page(['p1'], `${other.origin}/baseR4/Patient?page=2`));
  const { gw } = gateway(t, { events: false });
  gw.addSource('s', server.cs);
  const got: Bundle[] = [];
  await assert.rejects(
    (async () => {
      for await (const b of gw.pages('Patient', {}, 's')) got.push(b);
    })(),
    (err: Error & { code?: string }) => err.code === 'ERR_CROSS_ORIGIN' && err.message.includes(other.origin) && !err.message.includes('tok-secret'),
  );
  assert.equal(got.length, 1);
  assert.equal(other.seen.length, 0);
});

test('a next link already followed is ERR_PAGINATION; so is one that is not a URL', async (t) => {
  const loop = await fakeServer(t, (url, origin) => page([url.searchParams.get('p') ?? '0'], `${origin}/baseR4/Patient?p=${url.searchParams.get('p') === '1' ? '2' : '1'}`));
  const { gw } = gateway(t, { events: false });
  gw.addSource('loop', loop.cs);
  const ids: string[] = [];
  await assert.rejects(
    (async () => {
      for await (const p of gw.searchAll('Patient', { p: '0' }, 'loop')) ids.push(p.id!);
    })(),
    { code: 'ERR_PAGINATION' },
  );
  assert.deepEqual(ids, ['0', '1', '2'], 'p=0, p=1, p=2, then p=1 again is refused before it is sent');
  assert.equal(loop.seen.length, 3);
  const broken = await fakeServer(t, () => page(['a'], 'http://[::1'));
  gw.addSource('broken', broken.cs);
  const it = gw.pages('Patient', {}, 'broken');
  assert.equal((await it.next()).done, false);
  await assert.rejects(it.next(), { code: 'ERR_PAGINATION', message: /not a URL/ });
});

test('a relative next link is resolved against the base', async (t) => {
  const server = await fakeServer(t, (url) => page([url.searchParams.get('page') ?? '1'], url.searchParams.get('page') === '2' ? undefined : 'Patient?page=2'));
  const { gw } = gateway(t, { events: false });
  gw.addSource('s', server.cs);
  const ids: string[] = [];
  for await (const p of gw.searchAll('Patient', {}, 's')) ids.push(p.id!);
  assert.deepEqual(ids, ['1', '2']);
  assert.equal(server.seen[1]?.url, '/baseR4/Patient?page=2');
});

test('pages through the sandbox: every patient once, in order', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t, { events: false });
  gw.addSource('s', s.connectionString());
  const first = await gw.search('Patient', { _count: 100 });
  const all: string[] = [];
  for await (const p of gw.searchAll('Patient', { _count: 2 })) all.push(p.id!);
  assert.deepEqual(all, first.entry?.map((e) => e.resource?.id));
  assert.equal(s.stats.requests.byKind.search, 1 + Math.ceil(all.length / 2));
});

test('paging options are checked at once; a signal aborts the page being fetched', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t, { events: false });
  gw.addSource('s', s.connectionString());
  assert.throws(() => gw.pages('Patient', {}, 's', { maxPages: 0 }), { name: 'RangeError', message: /maxPages/ });
  assert.throws(() => gw.searchAll('Patient', {}, 's', { maxResources: 1.5 }), { name: 'RangeError', message: /maxResources/ });
  assert.throws(() => gw.searchAll('Patient', {}, 's', { maxResources: '3' as unknown as number }), { name: 'TypeError', message: /maxResources/ });
  assert.throws(() => gw.pages('Patient', {}, 's', { signal: 'x' as unknown as AbortSignal }), { name: 'TypeError', message: /signal/ });
  assert.throws(() => gw.pages('Patient', {}, 's', 3 as unknown as object), TypeError);
  const controller = new AbortController();
  const it = gw.searchAll('Patient', { _count: 1 }, 's', { signal: controller.signal });
  assert.equal((await it.next()).done, false);
  controller.abort();
  await assert.rejects(async () => {
    for (;;) if ((await it.next()).done === true) break;
  }, { code: 'ERR_ABORTED' });
  await assert.rejects(gw.pages('NotAType' as 'Patient').next(), { code: 'ERR_INVALID_RESOURCE_TYPE' });
  await gw.close();
  await assert.rejects(gw.pages('Patient').next(), { code: 'ERR_CLOSED' });
});
