import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AuthTokenError, FHIRHTTPError, FhirgateError } from '../../../src/errors.js';
import { AsyncFHIRGateway } from '../../../src/gateway/async-gateway.js';
import { FHIRGateway } from '../../../src/gateway/sync-gateway.js';
import { startFixedServer, startRemoteSandbox } from '../../support/sync-gateway-helpers.js';

type Pair = { sync: FHIRGateway; async: AsyncFHIRGateway };

function pair(t: { after(fn: () => unknown): void }): Pair {
  const sync = new FHIRGateway({ events: false });
  const async = new AsyncFHIRGateway({ events: false });
  t.after(() => sync.close());
  t.after(() => async.close());
  return { sync, async };
}

/** What a caller can see of an error; the sync and async gateways must agree on all of it. */
function view(err: unknown): Record<string, unknown> {
  assert.ok(err instanceof Error, 'expected an Error');
  const e = err as Error & Partial<FHIRHTTPError & AuthTokenError>;
  return {
    class: err.constructor.name,
    code: e.code,
    message: e.message,
    status: e.status,
    operationOutcome: e.operationOutcome,
    oauthError: e.oauthError,
    cause: e.cause instanceof Error ? e.cause.message : undefined,
  };
}

/** The view of what `fn` throws at once (both gateways' `addSource` throw synchronously). */
function syncError(fn: () => unknown): Record<string, unknown> {
  try {
    fn();
  } catch (err) {
    return view(err);
  }
  assert.fail('expected a throw');
}

async function asyncError(fn: () => unknown): Promise<Record<string, unknown>> {
  try {
    await fn();
  } catch (err) {
    return view(err);
  }
  assert.fail('expected a rejection');
}

test('every error matches the async gateway: class, code, message, status, OperationOutcome', async (t) => {
  const sb = await startRemoteSandbox(t);
  const cs = await sb.connectionString();
  const gws = pair(t);
  const cases: [string, (gw: FHIRGateway | AsyncFHIRGateway) => unknown, string][] = [
    ['no sources', (gw) => gw.read('Patient', 'x'), 'ERR_NO_SOURCES'],
    ['add with a bad name', (gw) => gw.addSource('', cs), 'TypeError'],
  ];
  for (const [label, call, code] of cases) {
    const s = syncError(() => call(gws.sync));
    assert.deepEqual(s, await asyncError(() => call(gws.async)), label);
    assert.equal(s.code ?? s.class, code, label);
  }
  gws.sync.addSource('sb', cs);
  await gws.async.addSource('sb', cs);
  const more: [string, (gw: FHIRGateway | AsyncFHIRGateway) => unknown, string][] = [
    ['404', (gw) => gw.read('Patient', 'does-not-exist'), 'ERR_FHIR_HTTP'],
    ['unknown source', (gw) => gw.read('Patient', 'x', 'nope'), 'ERR_UNKNOWN_SOURCE'],
    ['bad id', (gw) => gw.read('Patient', '../etc/passwd'), 'ERR_INVALID_ID'],
    ['bad type', (gw) => gw.read('Nope' as 'Patient', 'x'), 'ERR_INVALID_RESOURCE_TYPE'],
    ['update without id', (gw) => gw.update({ resourceType: 'Patient' }), 'ERR_INVALID_RESOURCE'],
    ['bad search value', (gw) => gw.search('Patient', { family: { no: 1 } as unknown as string }), 'ERR_INVALID_SEARCH'],
    ['unknown search parameter', (gw) => gw.search('Patient', { 'no-such-param': 'x' }), 'ERR_FHIR_HTTP'],
    ['source of the wrong type', (gw) => gw.read('Patient', 'x', 42 as unknown as string), 'TypeError'],
  ];
  for (const [label, call, code] of more) {
    const s = syncError(() => call(gws.sync));
    assert.deepEqual(s, await asyncError(() => call(gws.async)), label);
    assert.equal(s.code ?? s.class, code, label);
  }
  const notFound = syncError(() => gws.sync.read('Patient', 'does-not-exist'));
  assert.equal(notFound.class, 'FHIRHTTPError');
  assert.equal(notFound.status, 404);
  assert.equal((notFound.operationOutcome as { resourceType: string }).resourceType, 'OperationOutcome');
  assert.match(String(notFound.message), /^read Patient\/does-not-exist failed: 404/);
});

test('a bad connection string throws at once with the async message and registers nothing', (t) => {
  const gws = pair(t);
  for (const bad of ['http://example.org/fhir', 'fhir://example.org/fhir?client_id=a&client_secret=s3cr3t&colour=red', 'fhir://example.org/r4?client_secret_path=/k.pem']) {
    const a = syncError(() => gws.async.addSource('x', bad));
    const s = syncError(() => gws.sync.addSource('x', bad));
    assert.deepEqual(s, a);
    assert.equal(s.code, 'ERR_CONNECTION_STRING');
    assert.doesNotMatch(String(s.message), /s3cr3t/);
  }
  assert.deepEqual(gws.sync.sourceNames, []);
});

test('a key file that cannot be read is ERR_AUTH_KEY at addSource and registers nothing', (t) => {
  const gws = pair(t);
  const cs = 'fhir://127.0.0.1:9/fhir/?client_id=app&client_secret_path=/no/such/key.pem&use_jwt_assertion=true&token_url=http://127.0.0.1:9/token';
  const a = syncError(() => gws.async.addSource('k', cs));
  const s = syncError(() => gws.sync.addSource('k', cs));
  assert.equal(s.code, 'ERR_AUTH_KEY');
  assert.deepEqual(s, a);
  assert.deepEqual(gws.sync.sourceNames, []);
});

test('a refused token is AuthTokenError with the status and OAuth error, never the secret', async (t) => {
  const sb = await startRemoteSandbox(t, { clients: [{ clientId: 'app', clientSecret: 'right-secret' }] });
  const cs = (await sb.connectionString('app')).replace('right-secret', 'wrong-secret');
  const gws = pair(t);
  gws.sync.addSource('sb', cs);
  await gws.async.addSource('sb', cs);
  let thrown: unknown;
  try {
    gws.sync.read('Patient', 'x');
  } catch (err) {
    thrown = err;
  }
  assert.ok(thrown instanceof AuthTokenError);
  assert.equal(thrown.code, 'ERR_AUTH_TOKEN');
  assert.equal(thrown.status, 401);
  assert.equal(thrown.oauthError, 'invalid_client');
  assert.deepEqual(view(thrown), await asyncError(() => gws.async.read('Patient', 'x')));
  assert.doesNotMatch(JSON.stringify({ ...view(thrown), stack: thrown.stack }), /wrong-secret/);
});

test('arguments that cannot cross to the worker are a TypeError, and the gateway still works', async (t) => {
  const sb = await startRemoteSandbox(t);
  const gw = new FHIRGateway({ events: false });
  t.after(() => gw.close());
  gw.addSource('sb', await sb.connectionString());
  const resource = { resourceType: 'Patient', extra: () => 1 } as unknown as { resourceType: 'Patient' };
  assert.throws(() => gw.create(resource), { name: 'TypeError', message: /FHIRGateway\.create\(\): its arguments cannot be sent/ });
  assert.equal(gw.search('Patient', { _count: 1 }).resourceType, 'Bundle');
});

test('bad options throw at once, naming the option', () => {
  assert.throws(() => new FHIRGateway({ timeoutSeconds: -1 }), { name: 'RangeError', message: /options\.timeoutSeconds/ });
  assert.throws(() => new FHIRGateway({ events: 'no' as unknown as boolean }), { name: 'TypeError', message: /options\.events/ });
  assert.throws(() => new FHIRGateway({ maxConnections: 4 } as never), { name: 'TypeError', message: /options\.maxConnections.*AsyncFHIRGateway/ });
  assert.throws(() => new FHIRGateway({ dispatcher: {} as never }), { name: 'TypeError', message: /options\.dispatcher/ });
  assert.ok(new FhirgateError('ERR_CLOSED', 'x')); // the error module loads in this thread too
});

test('a resource nested 10,000 arrays deep (20 KB) is ERR_FHIR_RESPONSE from both gateways, never a bare RangeError', async (t) => {
  // The sync gateway's worker parsed it, but the calling thread could not rebuild it: receiveMessageOnPort
  // threw "Maximum call stack size exceeded" out of the bridge.
  const deep = `{"resourceType":"Patient","id":"p","extension":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
  const srv = await startFixedServer(t, deep);
  const cs = `fhir://${srv.origin.slice('http://'.length)}/fhir`;
  const gws = pair(t);
  gws.sync.addSource('deep', cs);
  await gws.async.addSource('deep', cs);
  const read = (gw: FHIRGateway | AsyncFHIRGateway) => gw.read('Patient', 'p', 'deep');
  const s = syncError(() => read(gws.sync));
  assert.deepEqual(s, await asyncError(() => read(gws.async)));
  assert.equal(s.class, 'FhirgateError');
  assert.equal(s.code, 'ERR_FHIR_RESPONSE');
  assert.match(String(s.message), /read Patient\/p: the server answered 200 with JSON nested more than 512 levels deep/);
});
