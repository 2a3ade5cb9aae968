// Issue 38 items 1 and 3: the facade's upstream call builds its target from the source's base parsed once
// (no URL parse for a plain relative path) and reads the answer's headers from its raw list. What goes up
// and what comes back must be what the URL parser and Node's `headers` object would have made of them.
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { EXCHANGE_RESPONSE_HEADERS } from '../../src/gateway/core/exchange.js';
import { startServer } from '../support/test-server.js';
import { gateway } from '../support/gateway-fixtures.js';

test('exchange: every relative path goes up as the URL parser resolves it under the base (dot segments, escapes, empty query)', async (t) => {
  const srv = await startServer(t, (_req, res) => res.writeHead(200, { 'content-type': 'application/fhir+json' }).end('{"resourceType":"Patient"}'));
  const { gw } = gateway(t);
  gw.addSource('s', `fhir://${srv.url.slice(7)}/r4/`);
  const base = `${srv.url}/r4`;
  const paths = [
    'Patient/bench-1',
    'Patient?family=Doe&_count=5',
    'Patient/p1/%24everything?_type=Observation%2CCondition',
    'Patient/p1/$everything',
    "Patient/o'brien",
    "Patient?name=O'Brien",
    'Patient/../Observation',
    'Patient/..',
    'Patient/%2e%2E/Observation',
    'Patient/.%2E/x',
    'Patient/./1',
    'Patient/a b',
    'Patient?x=a b&y=<z>',
    'Patient/1?',
    'Patient?a=1?b=/..',
    '/Patient/1',
    'Patient//1',
    'Patient/é',
    'Patient/{x}|^`',
    'Patient?q=\\x',
    'Patient/1#frag',
    'Patient/a:b@c',
    'metadata',
    '',
  ];
  for (const path of paths) {
    await gw.exchange('s', { method: 'GET', path });
    const url = new URL(path === '' ? base : `${base}/${path.replace(/^\/+/, '')}`);
    assert.equal(srv.seen.at(-1)?.url, url.pathname + url.search, JSON.stringify(path));
  }
  // A scheme makes it absolute, whatever follows: never a path under the base.
  await assert.rejects(gw.exchange('s', { method: 'GET', path: 'http:evil.example/Patient' }), { code: 'ERR_CROSS_ORIGIN' });
  assert.equal(srv.seen.length, paths.length);
});

test("exchange: the caller's headers are checked and sent lower-cased over the default Accept; a bad one is a TypeError and sends nothing", async (t) => {
  const srv = await startServer(t, (_req, res) => res.writeHead(200, { 'content-type': 'application/fhir+json' }).end('{}'));
  const { gw } = gateway(t);
  gw.addSource('s', `fhir://${srv.url.slice(7)}/r4`);
  await gw.exchange('s', { method: 'GET', path: 'Patient', headers: { prefer: 'handling=strict', 'if-none-match': 'W/"3"' } });
  assert.equal(srv.seen.at(-1)?.headers.accept, 'application/fhir+json');
  assert.equal(srv.seen.at(-1)?.headers.prefer, 'handling=strict');
  assert.equal(srv.seen.at(-1)?.headers['if-none-match'], 'W/"3"');
  await gw.exchange('s', { method: 'GET', path: 'Patient', headers: { accept: 'application/json' } });
  assert.equal(srv.seen.at(-1)?.headers.accept, 'application/json');
  await assert.rejects(gw.exchange('s', { method: 'GET', path: 'Patient', headers: { prefer: 'a\r\nx-injected: 1' } }), (err: unknown) => err instanceof TypeError && /options\.headers\["prefer"\]/.test(err.message));
  assert.equal(srv.seen.length, 2);
});

test("exchange: the answer's headers are those Node's headers object holds, repeated ones included, in the listed order", async (t) => {
  // Repeated headers of both kinds: those Node keeps the first of, and those it joins; names in any case.
  const sent: [string, string][] = [
    ['X-Progress', 'half'],
    ['Content-Location', 'Patient/1/_history/1'],
    ['ETag', 'W/"1"'],
    ['Content-Type', 'application/fhir+json'],
    ['content-type', 'text/plain'],
    ['etag', 'W/"2"'],
    ['x-progress', 'done'],
    ['CONTENT-LOCATION', 'Patient/1/_history/2'],
    ['Last-Modified', 'Sun, 29 Nov 2026 06:00:00 GMT'],
    ['Retry-After', '5'],
    ['retry-after', '7'],
    ['Set-Cookie', 'session=1'],
    ['Server', 'upstream'],
  ];
  const srv = await startServer(t, (_req, res) => res.writeHead(200, sent.flat()).end('{"resourceType":"Patient"}'));
  const { gw } = gateway(t);
  gw.addSource('s', `fhir://${srv.url.slice(7)}/r4`);
  const { headers } = await gw.exchange('s', { method: 'GET', path: 'Patient/1' });
  const fromNode = await new Promise<http.IncomingHttpHeaders>((resolve, reject) => {
    http.get(`${srv.url}/r4/Patient/1`, (res) => resolve(res.resume().headers)).on('error', reject);
  });
  const expected = EXCHANGE_RESPONSE_HEADERS.filter((name) => typeof fromNode[name] === 'string').map((name) => [name, fromNode[name]]);
  assert.deepEqual(Object.entries(headers), expected);
  assert.deepEqual(headers, {
    'content-type': 'application/fhir+json',
    etag: 'W/"1"',
    'last-modified': 'Sun, 29 Nov 2026 06:00:00 GMT',
    'content-location': 'Patient/1/_history/1, Patient/1/_history/2',
    'retry-after': '5',
    'x-progress': 'half, done',
  });
});
