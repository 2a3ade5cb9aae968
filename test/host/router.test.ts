import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TrieRouter } from '../../src/host/router.js';
import { startApp } from '../support/serve.js';
import { call } from '../support/host-helpers.js';

test('matches static and :param segments and puts params in a null-prototype object', () => {
  const router = new TrieRouter<string>();
  router.add('GET', '/patients/:id', 'show');
  router.add('GET', '/patients/search', 'search');
  const found = router.match('GET', '/patients/7');
  assert.equal(found.kind, 'found');
  if (found.kind !== 'found') return;
  assert.equal(found.handler, 'show');
  assert.equal(found.params['id'], '7');
  assert.equal(Object.getPrototypeOf(found.params), null);
  assert.equal(found.pattern, '/patients/:id');
  const fixed = router.match('GET', '/patients/search');
  assert.equal(fixed.kind === 'found' && fixed.handler, 'search');
});

test('a static segment wins, with backtracking to a parameter when the static branch leads nowhere', () => {
  const router = new TrieRouter<string>();
  router.add('GET', '/a/:x/c', 'param');
  router.add('GET', '/a/b/d', 'static');
  const m = router.match('GET', '/a/b/c');
  assert.equal(m.kind === 'found' && m.handler, 'param');
  assert.deepEqual(m.kind === 'found' && { ...m.params }, { x: 'b' });
  assert.equal(router.match('GET', '/a/b/d').kind === 'found', true);
});

test('routes with different parameter names at one position keep their own names', () => {
  const router = new TrieRouter<string>();
  router.add('GET', '/t/:type/:id', 'read');
  router.add('POST', '/t/:kind/:name', 'write');
  const m = router.match('POST', '/t/Patient/1');
  assert.deepEqual(m.kind === 'found' && { ...m.params }, { kind: 'Patient', name: '1' });
});

test('a trailing slash is not significant and the root is the empty path', () => {
  const router = new TrieRouter<string>();
  router.add('POST', '/notereader', 'soap');
  router.add('GET', '/', 'root');
  assert.equal(router.match('POST', '/notereader/').kind, 'found');
  assert.equal(router.match('POST', '/notereader').kind, 'found');
  assert.equal(router.match('GET', '').kind, 'found');
  assert.equal(router.match('GET', '/').kind, 'found');
  assert.equal(router.match('GET', '//').kind, 'not-found');
});

test('decodes percent-encoded segments and rejects a malformed escape with ERR_BAD_REQUEST', () => {
  const router = new TrieRouter<string>();
  router.add('GET', '/x/:v', 'x');
  const m = router.match('GET', '/x/a%20b%2Fc');
  assert.equal(m.kind === 'found' && m.params['v'], 'a b/c');
  assert.throws(() => router.match('GET', '/x/%E0%A4%A'), { code: 'ERR_BAD_REQUEST', status: 400 });
});

test('tells not-found from method-not-allowed, listing HEAD with GET', () => {
  const router = new TrieRouter<string>();
  router.add('GET', '/r', 'get');
  router.add('DELETE', '/r', 'delete');
  assert.deepEqual(router.match('POST', '/r'), { kind: 'method-not-allowed', allow: ['DELETE', 'GET', 'HEAD'] });
  assert.equal(router.match('HEAD', '/r').kind, 'found');
  assert.equal(router.match('GET', '/nope').kind, 'not-found');
  assert.equal(router.match('GET', '/r/extra').kind, 'not-found');
});

test('refuses a duplicate route and bad parameter names', () => {
  const router = new TrieRouter<string>();
  router.add('GET', '/a/:id', 'one');
  assert.throws(() => router.add('get', '/a/:other/', 'two'), { code: 'ERR_DUPLICATE_ROUTE' });
  assert.throws(() => router.add('GET', '/b/:1x', 'bad'), TypeError);
  assert.throws(() => router.add('GET', '/b/:x/:x', 'twice'), TypeError);
});

test('over HTTP: 404, 405 with Allow, HEAD without a body, 400 on a bad escape', async (t) => {
  const { base } = await startApp(t, {}, (app) => {
    app.get('/items/:id', (ctx) => ({ id: ctx.params.id }));
    app.delete('/items/:id', () => undefined);
  });
  const got = await call(base, '/items/a%2Fb/');
  assert.equal(got.status, 200);
  assert.deepEqual(got.json(), { id: 'a/b' });

  const head = await call(base, '/items/1', { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.text, '');
  assert.equal(head.headers['content-length'], String(Buffer.byteLength(JSON.stringify({ id: '1' }))));

  const notAllowed = await call(base, '/items/1', { method: 'PUT' });
  assert.equal(notAllowed.status, 405);
  assert.equal(notAllowed.headers['allow'], 'DELETE, GET, HEAD');
  assert.equal(notAllowed.json().error.code, 'ERR_METHOD_NOT_ALLOWED');

  const missing = await call(base, '/nothing/here');
  assert.equal(missing.status, 404);
  assert.equal(missing.json().error.code, 'ERR_NOT_FOUND');

  const bad = await call(base, '/items/%zz');
  assert.equal(bad.status, 400);
  assert.equal(bad.json().error.code, 'ERR_BAD_REQUEST');

  const deleted = await call(base, '/items/1', { method: 'DELETE' });
  assert.equal(deleted.status, 204);
  assert.equal(deleted.headers['content-length'], undefined);
});

test('over HTTP: an absolute-form request target is routed by its path', async (t) => {
  const { base } = await startApp(t, {}, (app) => app.get('/abs', (ctx) => ({ q: ctx.query['q'] })));
  const res = await call(base, `${base}/abs?q=1`);
  assert.equal(res.status, 200);
  assert.deepEqual(res.json(), { q: '1' });
});
