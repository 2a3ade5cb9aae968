import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FhirgateError } from '../../src/errors.js';
import { MOUNT, json } from '../../src/mount/index.js';
import type { Mountable, PublicError } from '../../src/mount/index.js';
import { startApp } from '../support/serve.js';
import { call, FakeGateway } from '../support/host-helpers.js';

/** A service that answers its errors as text/plain, to show the host uses the component's own format. */
class PlainTextService {
  readonly seen: PublicError[] = [];
  constructor(readonly throwInErrorReply = false) {}
  [MOUNT](): Mountable {
    return {
      kind: 'service',
      defaultPath: '/plain',
      routes: () => [
        { method: 'GET', path: '/teapot', handle: () => { throw new FhirgateError('ERR_BAD_REQUEST', 'no tea here', { status: 418 }); } },
        { method: 'GET', path: '/upstream', handle: () => { throw new FhirgateError('ERR_NETWORK', 'connect ECONNREFUSED 10.0.0.7:443'); } },
        { method: 'GET', path: '/ok', handle: () => json(200, { ok: true }) },
      ],
      status: () => ({ status: 'active' }),
      openapi: () => ({}),
      useEvents: () => {},
      close: async () => {},
      errorReply: (error) => {
        this.seen.push(error);
        if (this.throwInErrorReply) throw new Error('formatter broke');
        return { status: error.status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: `${error.code}: ${error.message}` };
      },
    };
  }
}

test("a mounted component answers its own errors: the host asks its errorReply under its prefix, and only there", async (t) => {
  const service = new PlainTextService();
  const { base } = await startApp(t, {}, (app) => app.registerService(service));
  const teapot = await call(base, '/plain/teapot');
  assert.equal(teapot.status, 418);
  assert.equal(teapot.headers['content-type'], 'text/plain; charset=utf-8');
  assert.equal(teapot.text, 'ERR_BAD_REQUEST: no tea here');
  const missing = await call(base, '/plain/nothing');
  assert.equal(missing.status, 404);
  assert.match(missing.text, /^ERR_NOT_FOUND: no route for GET \/plain\/nothing$/);
  const wrongMethod = await call(base, '/plain/ok', { method: 'DELETE' });
  assert.equal(wrongMethod.status, 405);
  assert.match(wrongMethod.text, /^ERR_METHOD_NOT_ALLOWED: DELETE is not allowed here/);
  // Outside the prefix, the host's JSON error body.
  const outside = await call(base, '/plainly');
  assert.equal(outside.status, 404);
  assert.equal(outside.json().error.code, 'ERR_NOT_FOUND');
});

test('the status comes from the one table, and a 5xx message the component gets is already generic', async (t) => {
  const service = new PlainTextService();
  const { base } = await startApp(t, {}, (app) => app.registerService(service));
  const upstream = await call(base, '/plain/upstream', { headers: { 'x-request-id': 'req-42' } });
  assert.equal(upstream.status, 502);
  assert.equal(upstream.text, 'ERR_NETWORK: an upstream server failed (request id req-42)');
  assert.ok(!JSON.stringify(service.seen).includes('10.0.0.7'));
});

test('an errorReply that throws is logged and the JSON error body is sent instead', async (t) => {
  const { base, log } = await startApp(t, {}, (app) => app.registerService(new PlainTextService(true)));
  const teapot = await call(base, '/plain/teapot');
  assert.equal(teapot.status, 418);
  assert.deepEqual(teapot.json(), { error: { code: 'ERR_BAD_REQUEST', message: 'no tea here' } });
  assert.ok(log.lines.some((l) => l.level === 'error' && l.message.includes('errorReply') && l.fields.error === 'formatter broke'));
});

test('routes under a gateway prefix answer errors as OperationOutcome, others as JSON errors', async (t) => {
  const gw = new FakeGateway({
    routes: [
      { method: 'GET', path: '/boom', handle: () => { throw new Error('internal detail'); } },
      { method: 'POST', path: '/only-post', handle: () => json(200, {}) },
    ],
  });
  const { base } = await startApp(t, {}, (a) => a.registerGateway(gw));
  const boom = await call(base, '/fhir/boom');
  assert.equal(boom.status, 500);
  assert.equal(boom.headers['content-type'], 'application/fhir+json; charset=utf-8');
  const outcome = boom.json();
  assert.equal(outcome.resourceType, 'OperationOutcome');
  assert.equal(outcome.issue[0].code, 'exception');
  assert.ok(!boom.text.includes('internal detail'));
  const unknown = await call(base, '/fhir/nothing/here');
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json().issue[0].code, 'not-found');
  const wrongMethod = await call(base, '/fhir/only-post');
  assert.equal(wrongMethod.status, 405);
  assert.equal(wrongMethod.json().issue[0].code, 'not-supported');
  const elsewhere = await call(base, '/fhirx');
  assert.equal(elsewhere.json().error.code, 'ERR_NOT_FOUND');
});
