import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { isFhirgateError } from '../../src/errors.js';
import { createServiceAPI } from '../../src/host/index.js';
import { json } from '../../src/mount/index.js';
import type { RouteRequest } from '../../src/mount/index.js';
import { startApp } from '../support/serve.js';
import { until } from '../support/test-server.js';
import { call, FakeService } from '../support/host-helpers.js';

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

test('connectionSignal is one signal for every request on a keep-alive connection, aborted only when the connection closes', async (t) => {
  const seen: AbortSignal[] = [];
  let started!: () => void;
  const slowStarted = new Promise<void>((resolve) => (started = resolve));
  let settle!: (reason: unknown) => void;
  const aborted = new Promise<unknown>((resolve) => (settle = resolve));
  const svc = new FakeService({
    routes: [
      { method: 'GET', path: '/quick', handle: (req: RouteRequest) => (seen.push(req.connectionSignal), json(200, { aborted: req.connectionSignal.aborted })) },
      {
        method: 'GET',
        path: '/slow',
        handle: (req: RouteRequest) => new Promise((resolve) => {
          const signal = req.connectionSignal;
          seen.push(signal);
          signal.addEventListener('abort', () => {
            settle(signal.reason);
            resolve(json(200, {}));
          }, { once: true });
          started();
        }),
      },
    ],
  });
  const { base } = await startApp(t, {}, (a) => a.registerService(svc));
  const url = new URL(base);
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => {});
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.write('GET /svc/quick HTTP/1.1\r\nHost: x\r\n\r\nGET /svc/quick HTTP/1.1\r\nHost: x\r\n\r\n');
  await until(() => received.split('{"aborted":false}').length === 3, 'two answers on one connection');
  assert.equal(seen.length, 2);
  assert.equal(seen[0], seen[1], 'one signal for the connection');
  assert.equal(seen[0]!.aborted, false, 'answered requests do not abort it');
  socket.write('GET /svc/slow HTTP/1.1\r\nHost: x\r\n\r\n');
  await slowStarted;
  assert.equal(seen[2], seen[0]);
  socket.destroy();
  const reason = await aborted;
  assert.ok(isFhirgateError(reason) && reason.code === 'ERR_ABORTED', String(reason));
  const other = await call(base, '/svc/quick');
  assert.equal(other.json().aborted, false, 'another connection has its own signal');
  assert.notEqual(seen.at(-1), seen[0]);
});

test('URLs come from the listening address by default, from publicUrl when set, and from Host/X-Forwarded-* only behind a trusted proxy for allowed hosts', async (t) => {
  const where = () => new FakeService({ routes: [{ method: 'GET', path: '/where', handle: (req: RouteRequest) => json(200, { url: req.url.href, base: req.baseUrl }) }] });
  const forwarded = { host: 'inner:1', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'api.example.org' };
  const plain = await startApp(t, {}, (a) => a.registerService(where()));
  const port = new URL(plain.base).port;
  assert.deepEqual((await call(plain.base, '/svc/where?x=1', { headers: forwarded })).json(), { url: `http://127.0.0.1:${port}/svc/where?x=1`, base: `http://127.0.0.1:${port}/svc` });
  assert.deepEqual((await call(plain.base, '/svc/where', { headers: { host: 'evil.example:9999' } })).json().base, `http://127.0.0.1:${port}/svc`);

  const configured = await startApp(t, { publicUrl: 'https://gw.example.org/base/', trustProxy: true, allowedHosts: ['api.example.org'] }, (a) => a.registerService(where()));
  assert.deepEqual((await call(configured.base, '/svc/where', { headers: forwarded })).json(), { url: 'https://gw.example.org/base/svc/where', base: 'https://gw.example.org/base/svc' });

  const proxied = await startApp(t, { trustProxy: true, allowedHosts: ['API.example.org', 'inner:1'] }, (a) => a.registerService(where()));
  assert.deepEqual((await call(proxied.base, '/svc/where', { headers: forwarded })).json(), { url: 'https://api.example.org/svc/where', base: 'https://api.example.org/svc' });
  assert.equal((await call(proxied.base, '/svc/where', { headers: { host: 'inner:1' } })).json().base, 'http://inner:1/svc');
  const proxiedPort = new URL(proxied.base).port;
  const hostile: Record<string, string>[] = [{ host: 'evil.example:9999' }, { host: 'inner:1', 'x-forwarded-host': 'evil.example' }, { host: 'bad host/evil' }];
  for (const headers of hostile) {
    assert.equal((await call(proxied.base, '/svc/where', { headers })).json().base, `http://127.0.0.1:${proxiedPort}/svc`, JSON.stringify(headers));
  }
  const trustedOnly = await startApp(t, { trustProxy: true }, (a) => a.registerService(where()));
  assert.equal((await call(trustedOnly.base, '/svc/where', { headers: forwarded })).json().base, `http://127.0.0.1:${new URL(trustedOnly.base).port}/svc`, 'no allowlist: no header is used');
  assert.equal((await call(proxied.base, '//svc//where', { headers: { host: 'h' } })).status, 404, 'a protocol-relative-looking path stays a path');
});

test('publicUrl and allowedHosts are checked once, naming the option', () => {
  for (const publicUrl of ['ftp://x', 'https://u:p@x', 'https://x/?q', 'https://x/#f', 'not a url', 42]) {
    assert.throws(() => createServiceAPI({ publicUrl: publicUrl as string }), { name: 'TypeError', message: /options\.publicUrl / }, String(publicUrl));
  }
  for (const allowedHosts of [['a b'], 'x', [1], ['x/y']]) {
    assert.throws(() => createServiceAPI({ allowedHosts: allowedHosts as string[] }), { name: 'TypeError', message: /options\.allowedHosts / }, String(allowedHosts));
  }
});
