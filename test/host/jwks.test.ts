/**
 * `GET /.well-known/jwks.json` on the host: the public keys every mounted component offers through
 * the optional `jwks()` of the mount contract, public even with API keys, cacheable, and never a
 * private member.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServiceAPI } from '../../src/host/index.js';
import { MOUNT } from '../../src/mount/index.js';
import type { Mountable } from '../../src/mount/index.js';
import { startApp } from '../support/serve.js';
import { call, FakeGateway } from '../support/host-helpers.js';

const EC = { kty: 'EC', crv: 'P-384', x: 'eA', y: 'eQ', kid: 'ec-1', alg: 'ES384', use: 'sig' };
const RSA = { kty: 'RSA', n: 'bg', e: 'AQAB', kid: 'rsa-1', alg: 'RS384', use: 'sig' };

/** A component that offers the keys `jwks` returns. */
class Signer extends FakeGateway {
  constructor(readonly jwks: () => readonly Record<string, unknown>[], kind: 'gateway' | 'service' = 'gateway') {
    super({ kind, defaultPath: `/${kind}` });
  }
  override [MOUNT](): Mountable {
    return { ...super[MOUNT](), jwks: this.jwks };
  }
}

test('serves the keys of every component once, public with API keys on, with Cache-Control max-age', async (t) => {
  let offered: readonly Record<string, unknown>[] = [EC];
  const { base } = await startApp(t, { apiKeys: ['k1'], jwksMaxAgeSeconds: 120 }, (app) => {
    app.registerGateway(new Signer(() => offered), { name: 'a' });
    app.registerGateway(new Signer(() => [RSA, EC]), { name: 'b', path: '/other' });
    app.registerService(new FakeGateway({ kind: 'service', defaultPath: '/svc' }));
  });
  const res = await call(base, '/.well-known/jwks.json');
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-type'], 'application/jwk-set+json');
  assert.equal(res.headers['cache-control'], 'public, max-age=120');
  assert.deepEqual(res.json(), { keys: [EC, RSA] });
  offered = [];
  assert.deepEqual((await call(base, '/.well-known/jwks.json')).json(), { keys: [RSA, EC] }, 'read at each request');
  assert.equal((await call(base, '/.well-known/jwks.json', { method: 'HEAD' })).status, 200);
  assert.equal((await call(base, '/gateway/status')).status, 401, 'other routes still need the key');
});

test('an app without signing components serves an empty set; the default max-age is 300 s', async (t) => {
  const { base } = await startApp(t, {}, (app) => app.registerGateway(new FakeGateway()));
  const res = await call(base, '/.well-known/jwks.json');
  assert.deepEqual(res.json(), { keys: [] });
  assert.equal(res.headers['cache-control'], 'public, max-age=300');
});

test('a key with a private member is never served, and a component whose jwks() throws is logged and skipped', async (t) => {
  const leaky = [{ ...EC, kid: 'leak-d', d: 'private' }, { ...RSA, kid: 'leak-p', p: 'x', q: 'y' }, { kty: 'oct', k: 'secret' }, 'junk', RSA];
  const { base, log } = await startApp(t, {}, (app) => {
    app.registerGateway(new Signer(() => leaky as Record<string, unknown>[]), { name: 'leaky' });
    app.registerGateway(new Signer(() => { throw new Error('boom'); }), { name: 'broken', path: '/broken' });
  });
  const res = await call(base, '/.well-known/jwks.json');
  assert.equal(res.status, 200);
  assert.deepEqual(res.json(), { keys: [RSA] });
  for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) assert.ok(!res.text.includes(`"${member}":`), member);
  assert.ok(log.lines.some((l) => l.message === 'jwks failed' && l.fields.component === 'broken'));
  assert.equal(log.lines.filter((l) => l.message.startsWith('jwks: a key was left out')).length, 4);
});

test('jwksMaxAgeSeconds is checked once', () => {
  assert.throws(() => createServiceAPI({ apiKeys: [], jwksMaxAgeSeconds: -1 }), /RangeError: options.jwksMaxAgeSeconds must be an integer >= 0/);
  assert.throws(() => createServiceAPI({ apiKeys: [], jwksMaxAgeSeconds: '60' as never }), /TypeError: options.jwksMaxAgeSeconds must be a number/);
});

test('the JWKS route is in the OpenAPI document, marked public', async (t) => {
  const { base } = await startApp(t, { apiKeys: ['k1'] });
  const doc = (await call(base, '/openapi.json')).json();
  const op = doc.paths['/.well-known/jwks.json']?.get;
  assert.ok(op, 'documented');
  assert.deepEqual(op.security, []);
});
