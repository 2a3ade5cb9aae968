import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { isFhirgateError } from '../../src/errors.js';
import { json } from '../../src/mount/index.js';
import type { RouteRequest } from '../../src/mount/index.js';
import { call, FakeService, startApp } from './helpers.js';

test('components can stream the body with chunks(), under the same limit, and not read it twice', async (t) => {
  const svc = new FakeService({
    routes: [
      {
        method: 'POST',
        path: '/stream',
        handle: async (req: RouteRequest) => {
          let size = 0;
          let pieces = 0;
          for await (const chunk of req.chunks()) {
            size += chunk.length;
            pieces += 1;
          }
          const again = await req.bytes().then(() => 'read', (e: unknown) => (isFhirgateError(e) ? e.code : 'other'));
          let twice = 'allowed';
          try {
            req.chunks();
          } catch (e) {
            twice = isFhirgateError(e) ? e.code : 'other';
          }
          return json(200, { size, pieces: pieces > 0, again, twice });
        },
      },
      {
        method: 'POST',
        path: '/small',
        handle: async (req: RouteRequest) => json(200, { size: (await req.bytes(4)).length }),
      },
    ],
  });
  const { base } = await startApp(t, { bodyLimit: 1000 }, (a) => a.registerService(svc));
  const res = await call(base, '/svc/stream', { method: 'POST', body: 'z'.repeat(900) });
  assert.deepEqual(res.json(), { size: 900, pieces: true, again: 'ERR_HANDLER', twice: 'ERR_HANDLER' });
  assert.equal((await call(base, '/svc/stream', { method: 'POST', body: 'z'.repeat(1001) })).status, 413);
  assert.equal((await call(base, '/svc/small', { method: 'POST', body: 'abcd' })).status, 200);
  assert.equal((await call(base, '/svc/small', { method: 'POST', body: 'abcde' })).status, 413);
});

test('a client that goes away mid-body makes the body read fail with ERR_ABORTED', async (t) => {
  let settle!: (code: string) => void;
  const outcome = new Promise<string>((resolve) => (settle = resolve));
  let started!: () => void;
  const reading = new Promise<void>((resolve) => (started = resolve));
  const svc = new FakeService({
    routes: [
      {
        method: 'POST',
        path: '/upload',
        handle: async (req: RouteRequest) => {
          started();
          try {
            await req.bytes();
            settle('read');
          } catch (e) {
            settle(isFhirgateError(e) ? e.code : 'other');
          }
          return json(200, {});
        },
      },
    ],
  });
  const { base } = await startApp(t, {}, (a) => a.registerService(svc));
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => {});
  socket.write('POST /svc/upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly-a-part');
  await reading;
  socket.destroy();
  assert.equal(await outcome, 'ERR_ABORTED');
});

test('URLs come from Host by default and from X-Forwarded-* only when the proxy is trusted', async (t) => {
  const svc = new FakeService({ routes: [{ method: 'GET', path: '/where', handle: (req: RouteRequest) => json(200, { url: req.url.href, base: req.baseUrl }) }] });
  const forwarded = { host: 'inner:1', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.org' };
  const plain = await startApp(t, {}, (a) => a.registerService(svc));
  assert.deepEqual((await call(plain.base, '/svc/where?x=1', { headers: forwarded })).json(), { url: 'http://inner:1/svc/where?x=1', base: 'http://inner:1/svc' });
  const port = new URL(plain.base).port;
  assert.deepEqual((await call(plain.base, '/svc/where', { headers: { host: 'bad host/evil' } })).json().base, `http://127.0.0.1:${port}/svc`);

  const svc2 = new FakeService({ routes: [{ method: 'GET', path: '/where', handle: (req: RouteRequest) => json(200, { url: req.url.href, base: req.baseUrl }) }] });
  const proxied = await startApp(t, { trustProxy: true }, (a) => a.registerService(svc2));
  assert.deepEqual((await call(proxied.base, '/svc/where', { headers: forwarded })).json(), { url: 'https://api.example.org/svc/where', base: 'https://api.example.org/svc' });
  assert.equal((await call(proxied.base, '//svc//where', { headers: { host: 'h' } })).status, 404, 'a protocol-relative-looking path stays a path');
});
