/**
 * Fuzz: the host's path and query handling. Directly, `TrieRouter.match` on random raw paths finds,
 * misses or throws `ERR_BAD_REQUEST`; over a real socket, random and mutated request lines (bad `%`
 * escapes, `..`, NUL, raw UTF-8, long segments, repeated slashes, huge queries) always get a well-formed
 * HTTP answer with a client-error or success status, and the server keeps answering `/health`.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { createServiceAPI } from '../../src/host/index.js';
import { TrieRouter } from '../../src/host/router.js';
import type { Mountable, MountableComponent } from '../../src/mount/index.js';
import { json, MOUNT } from '../../src/mount/index.js';
import { fuzz, runFuzz, settle } from './lib/fuzz.js';
import type { Random } from './lib/random.js';
import { rawExchange, wireSafe } from './lib/raw-http.js';
import { captureLogger, type CapturingLogger } from '../support/logger.js';

const PATTERNS = ['/', '/health', '/echo/:a/:b', '/items/:id', '/items/:id/history', '/static/deep/path', '/fhir/transform/:type/:id', '/a/:x/c', '/a/b/:y'];
const PIECES = ['echo', 'items', 'static', 'deep', 'path', 'fhir', 'transform', 'Patient', '123', 'a', 'b', 'c', 'history', 'health', '', '.', '..', '%2e%2e', '%2F', '%', '%zz', '%E2%82', '%C3%A9', '%00', 'é', '\u0000', '\u202e', '😀', ';x=1', '*'];

/** A raw path: segments from the routes' vocabulary and nasty pieces, now and then long or mutated. */
function rawPath(rng: Random): string {
  const segments = Array.from({ length: rng.int(6) }, () => {
    if (rng.chance(0.03)) return rng.pick(['a', '%41', 'x']).repeat(1 + rng.int(3000));
    return rng.chance(0.8) ? rng.pick(PIECES) : rng.string(rng.size(12));
  });
  const path = `/${segments.join(rng.chance(0.9) ? '/' : rng.pick(['//', '///', '/./', '\\']))}${rng.chance(0.2) ? '/' : ''}`;
  return rng.chance(0.3) ? rng.mutate(path) : path;
}

function rawQuery(rng: Random): string {
  if (rng.chance(0.4)) return '';
  if (rng.chance(0.05)) return `?${rng.pick(['q=', 'a=1&', '%zz', '&&&='])}${'x'.repeat(rng.int(12_000))}`;
  if (rng.chance(0.05)) return `?${'k=v&'.repeat(1 + rng.int(3000))}`;
  const pairs = Array.from({ length: rng.size(8) }, () => `${rng.string(rng.size(8))}${rng.chance(0.8) ? `=${rng.string(rng.size(16))}` : ''}`);
  return `?${pairs.join(rng.chance(0.9) ? '&' : ';')}`;
}

fuzz('TrieRouter.match finds, misses or throws ERR_BAD_REQUEST on any raw path', { seed: 0x7a1e, iterations: 3000 }, {
  generate: (rng) => ({ method: rng.pick(['GET', 'HEAD', 'POST', 'DELETE', 'BREW']), path: rawPath(rng) }),
  async check({ method, path }) {
    const router = new TrieRouter<string>();
    for (const p of PATTERNS) router.add(p === '/a/b/:y' ? 'POST' : 'GET', p, p);
    const outcome = await settle(['ERR_BAD_REQUEST'], () => router.match(method, path));
    if (!outcome.ok) {
      assert.equal(outcome.error.status, 400);
      return;
    }
    const match = outcome.value;
    if (match.kind === 'method-not-allowed') assert.ok(match.allow.length > 0);
    if (match.kind !== 'found') return;
    const names = [...match.pattern.matchAll(/:(\w+)/g)].map((m) => m[1] as string);
    assert.deepEqual(Object.keys(match.params).sort(), names.sort());
    for (const value of Object.values(match.params)) assert.ok(value !== '', 'a parameter never matches an empty segment');
  },
});

/** A quiet logger that keeps error lines, so that a failure can show them. */
function errorLog(): CapturingLogger & { errors: string[] } {
  const errors: string[] = [];
  const log = captureLogger((line) => {
    if (line.level === 'error') errors.push(`${line.message} ${JSON.stringify(line.fields)}`);
  });
  return Object.assign(log, { errors });
}

/** A tiny gateway-like component, so that errors under its prefix take the OperationOutcome path. */
const fakeGateway: MountableComponent = {
  [MOUNT]: (): Mountable => ({
    kind: 'gateway',
    defaultPath: '/fhir',
    routes: () => [{ method: 'GET', path: '/transform/:type/:id', handle: (req) => json(200, { type: req.params.type, id: req.params.id, q: [...req.query] }) }],
    status: () => ({ status: 'active' }),
    openapi: () => ({}),
    useEvents: () => {},
    close: async () => {},
  }),
};

interface RawRequest {
  method: string;
  target: string;
  headers: string[];
  body: Buffer;
}

/** `ctx.query` as the host should build it: repeated keys become arrays, in order. */
function expectedQuery(rawQuery: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of new URLSearchParams(rawQuery)) {
    const seen = Object.hasOwn(out, key) ? out[key] : undefined;
    const next = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
    Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

const OK_STATUSES = new Set([200, 204, 400, 401, 404, 405, 413, 414, 415, 431]);
const API_KEY = 'fuzz-key';
const ORIGIN = 'https://ehr.example.org';

/** Credentials (right most of the time), request ids, origins and forwarded headers, some of them odd. */
function extraHeaders(rng: Random): string[] {
  const odd = (): string => rng.string(rng.size(40)).replace(/[\r\n]/g, '');
  const headers = [rng.chance(0.9) ? `X-API-Key: ${API_KEY}` : rng.pick([`Authorization: Bearer ${odd()}`, `Authorization: ${odd()}`, `X-API-Key: ${odd()}`, `Authorization: Bearer ${API_KEY}`])];
  if (rng.chance(0.05)) headers.push(`X-API-Key: ${odd()}`);
  if (rng.chance(0.3)) headers.push(`X-Request-ID: ${rng.chance(0.5) ? `req-${rng.int(1e6)}` : odd()}`);
  if (rng.chance(0.2)) headers.push(`Origin: ${rng.pick([ORIGIN, 'null', 'https://evil.example', odd()])}`);
  if (rng.chance(0.1)) headers.push(`Access-Control-Request-Method: ${rng.pick(['GET', 'POST', odd()])}`, `Access-Control-Request-Headers: ${odd()}`);
  if (rng.chance(0.2)) headers.push(`X-Forwarded-Host: ${rng.pick(['proxy.example', 'a,b', '[::1]:8', odd()])}`, `X-Forwarded-Proto: ${rng.pick(['https', 'http', 'gopher', odd()])}`);
  return headers;
}

function request(rng: Random): RawRequest {
  const method = rng.chance(0.9) ? rng.pick(['GET', 'GET', 'GET', 'HEAD', 'POST', 'DELETE', 'PUT', 'PATCH', 'OPTIONS']) : rng.pick(['BREW', 'get', 'PROPFIND', 'M-SEARCH']);
  const form = rng.int(20);
  const path = rawPath(rng);
  const absolute = rng.pick(['http://127.0.0.1', 'HTTP://fuzz.test:80', 'https://u@h', 'a:', 'x-y+z://', '//']);
  const segment = (): string => (rng.chance(0.7) ? rng.pick(PIECES) : rng.string(rng.size(12))).replace(/[/?]/g, '') || 'x';
  const echo = `/echo/${segment()}/${segment()}${rng.chance(0.2) ? '/' : ''}`;
  const target = form === 0 ? `${absolute}${path}${rawQuery(rng)}` : form === 1 ? rng.pick(['*', '?', 'echo/a/b', '%2Fecho'])
    : `${form < 8 ? echo : path}${rawQuery(rng)}`;
  const body = method === 'POST' || method === 'PUT' ? (rng.chance(0.5) ? Buffer.from(JSON.stringify(rng.json())) : rng.bytes()) : Buffer.alloc(0);
  const headers = [`Host: ${rng.chance(0.9) ? 'fuzz.test' : rng.string(rng.size(20), 'abc.:[]1')}`, 'Connection: close', ...extraHeaders(rng)];
  if (body.length > 0) headers.push(`Content-Type: ${rng.pick(['application/json', 'text/plain', 'application/fhir+json; charset=utf-8'])}`, `Content-Length: ${body.length}`);
  return { method, target: rng.chance(0.8) ? wireSafe(target) : target.replace(/[\r\n]/g, ''), headers, body };
}

test('the host answers random request lines with well-formed client-error or success answers and stays up', async (t) => {
  const log = errorLog();
  const app = createServiceAPI({ logger: log, apiKeys: [API_KEY], cors: { origins: [ORIGIN] }, trustProxy: true, enableEvents: false });
  app.registerGateway(fakeGateway);
  app.get('/echo/:a/:b', (ctx) => ({ params: { ...ctx.params }, query: { ...ctx.query }, url: ctx.url.href }));
  app.get('/items/:id', (ctx) => ({ id: ctx.params.id, url: ctx.url.pathname }));
  app.get('/items/:id/history', () => []);
  app.post('/items', async (ctx) => ({ got: await ctx.json() }));
  app.delete('/items/:id', () => undefined);
  app.get('/static/deep/path', () => 'static');
  const server = await app.listen(0);
  t.after(() => app.close());
  const { port } = server.address() as AddressInfo;
  await runFuzz({ seed: 0x5e7e, iterations: 1200 }, {
    generate: request,
    async check(req) {
      const head = Buffer.from(`${req.method} ${req.target} HTTP/1.1\r\n${req.headers.join('\r\n')}\r\n\r\n`, 'utf8');
      const answer = await rawExchange(port, Buffer.concat([head, req.body]), { head: req.method === 'HEAD' });
      assert.ok(OK_STATUSES.has(answer.status), `status ${answer.status}; server errors: ${log.errors.slice(-3).join(' | ')}`);
      if (answer.headers['content-type'] !== undefined) assert.match(answer.headers['x-request-id'] ?? '', /^[A-Za-z0-9._:-]{1,128}$/);
      if (answer.status === 200 && req.target.startsWith('/echo/') && req.method === 'GET') {
        const body = JSON.parse(answer.body.toString('utf8')) as { params: Record<string, string>; query: Record<string, unknown>; url: string };
        const q = req.target.indexOf('?');
        const [, , a = '', b = ''] = (q === -1 ? req.target : req.target.slice(0, q)).split('/');
        assert.deepEqual(body.params, { a: decodeURIComponent(a), b: decodeURIComponent(b) });
        assert.deepEqual(body.query, expectedQuery(q === -1 ? '' : req.target.slice(q + 1)));
        assert.ok(URL.canParse(body.url));
      }
    },
  });
  const health = await rawExchange(port, `GET /health HTTP/1.1\r\nHost: x\r\nX-API-Key: ${API_KEY}\r\nConnection: close\r\n\r\n`);
  assert.equal(health.status, 200);
  assert.deepEqual(JSON.parse(health.body.toString()), { status: 'healthy', pid: process.pid });
  assert.deepEqual(log.errors, []);
});
