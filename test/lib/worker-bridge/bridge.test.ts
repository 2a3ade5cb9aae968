import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AuthTokenError, FHIRHTTPError, FhirgateError } from '../../../src/errors.js';
import { SyncBridge, siblingModuleUrl } from '../../../src/lib/worker-bridge/bridge.js';
import { sourceSettings } from '../../../src/gateway/core/source-settings.js';

const workerUrl = siblingModuleUrl(import.meta.url, './echo-worker');
const LONG = 60_000;

function bridge(t: { after(fn: () => void): void }, options: Partial<ConstructorParameters<typeof SyncBridge>[0]> = {}): SyncBridge {
  const b = new SyncBridge({ workerUrl, name: 'Echo', ...options });
  t.after(() => b.close());
  return b;
}

test('siblingModuleUrl keeps the caller extension', () => {
  assert.equal(siblingModuleUrl('file:///a/b/c.ts', './sync/w').href, 'file:///a/b/sync/w.ts');
  assert.equal(siblingModuleUrl('file:///a/b/c.js', '../w').href, 'file:///a/w.js');
});

test('calls a worker synchronously and returns its values', (t) => {
  const extras: unknown[] = [];
  const b = bridge(t, { workerData: { hello: 'world' }, onExtra: (e) => extras.push(e) });
  assert.equal(b.started, false);
  assert.deepEqual(b.call('echo', [{ a: [1, 'x', null] }], LONG), { a: [1, 'x', null] });
  assert.equal(b.started, true);
  assert.equal(b.call('add', [2, 3], LONG), 5);
  assert.deepEqual(b.call('startData', [], LONG), { hello: 'world' });
  assert.deepEqual(extras, [1, 2, 3]);
});

test('errors cross the bridge with class, code, fields and cause', (t) => {
  const b = bridge(t);
  const http = catchSync(() => b.call('fail', ['http'], LONG));
  assert.ok(http instanceof FHIRHTTPError);
  assert.equal(http.code, 'ERR_FHIR_HTTP');
  assert.equal(http.status, 404);
  assert.equal(http.operation, 'read');
  assert.equal(http.reference, 'Patient/x');
  assert.equal(http.message, 'read Patient/x failed: 404 Not Found: gone');
  assert.deepEqual(http.operationOutcome, { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'not-found' }] });
  assert.equal((http.cause as Error).message, 'inner');
  assert.doesNotMatch(http.stack ?? '', /echo-worker/);

  const auth = catchSync(() => b.call('fail', ['auth'], LONG));
  assert.ok(auth instanceof AuthTokenError);
  assert.deepEqual([auth.code, auth.status, auth.oauthError, auth.oauthErrorDescription], ['ERR_AUTH_TOKEN', 401, 'invalid_client', 'bad secret']);

  const coded = catchSync(() => b.call('fail', ['fhirgate'], LONG));
  assert.ok(coded instanceof FhirgateError);
  assert.equal(coded.code, 'ERR_TIMEOUT');
  assert.equal((coded.cause as Error).name, 'TimeoutError');
  assert.equal((coded.cause as Error).message, 'aborted');

  const type = catchSync(() => b.call('fail', ['type'], LONG));
  assert.ok(type instanceof TypeError);
  assert.equal(type.message, 'bad option "x"');
  assert.ok(catchSync(() => b.call('fail', ['range'], LONG)) instanceof RangeError);

  const str = catchSync(() => b.call('fail', ['string'], LONG));
  assert.equal(str.message, 'just a string');
  const plain = catchSync(() => b.call('fail', ['other'], LONG)) as Error & { code?: string };
  assert.equal(plain.message, 'plain');
  assert.equal(plain.code, 'E_CUSTOM');
  assert.ok(catchSync(() => b.call('nope', [], LONG)) instanceof TypeError);
});

test('an answer that cannot be cloned becomes a FhirgateError with the bridge\'s answerErrorCode, not a hang', (t) => {
  const b = bridge(t);
  const err = catchSync(() => b.call('uncloneable', [], LONG));
  assert.ok(err instanceof FhirgateError);
  assert.equal((err as FhirgateError).code, 'ERR_HANDLER');
  assert.match(err.message, /^the answer to uncloneable\(\) cannot be sent across threads \(.*could not be cloned/);
  assert.equal(b.call('echo', ['still works'], LONG), 'still works');
});

test('an answer nested too deep to rebuild on the calling thread is a FhirgateError, not a bare RangeError', (t) => {
  const b = bridge(t, { answerErrorCode: 'ERR_FHIR_RESPONSE' });
  // 10,000 levels clone in the worker but cannot be rebuilt here; 100,000 cannot even be cloned there.
  for (const [levels, message] of [[10_000, /^Echo: the answer could not be received from the worker thread \(Maximum call stack/], [100_000, /^the answer to deep\(\) cannot be sent across threads/]] as const) {
    const err = catchSync(() => b.call('deep', [levels], LONG));
    assert.ok(err instanceof FhirgateError, `${err.name}: ${err.message}`);
    assert.equal((err as FhirgateError).code, 'ERR_FHIR_RESPONSE');
    assert.match(err.message, message);
    assert.equal(b.call('echo', ['still works'], LONG), 'still works');
  }
});

test('a call that outlives its time-out throws ERR_TIMEOUT and its late answer is not taken for the next', (t) => {
  const b = bridge(t);
  assert.equal(b.call('echo', [0], LONG), 0); // the worker is up
  const err = catchSync(() => b.call('hang', [], 50));
  assert.ok(err instanceof FhirgateError);
  assert.equal(err.code, 'ERR_TIMEOUT');
  assert.match(err.message, /Echo\.hang\(\) got no answer/);
  // release() lets hang() answer first ("late answer"); the bridge must skip it.
  assert.equal(b.call('release', [], LONG), 'released');
  assert.equal(b.call('echo', ['next'], LONG), 'next');
});

test('close is idempotent and later calls throw ERR_CLOSED', (t) => {
  const b = bridge(t);
  b.call('echo', [1], LONG);
  b.close();
  b.close();
  assert.equal(b.closed, true);
  const err = catchSync(() => b.call('echo', [1], LONG));
  assert.equal((err as FhirgateError).code, 'ERR_CLOSED');
  assert.equal(new SyncBridge({ workerUrl }).closed, false);
});

test('a worker that stops wakes its caller at once with ERR_CLOSED', (t) => {
  const b = bridge(t);
  const err = catchSync(() => b.call('exit', [], LONG));
  assert.equal((err as FhirgateError).code, 'ERR_CLOSED');
  assert.match(err.message, /worker thread cannot answer/);
  assert.equal((catchSync(() => b.call('echo', [1], LONG)) as FhirgateError).code, 'ERR_CLOSED');
});

test('bad options are refused', () => {
  assert.throws(() => new SyncBridge({ workerUrl: 'x' as unknown as URL }), { name: 'TypeError', message: /workerUrl/ });
  assert.throws(() => new SyncBridge({ workerUrl, startupMs: -1 }), { name: 'RangeError', message: /startupMs/ });
});

function catchSync(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  assert.fail('expected a throw');
}

test('a worker whose entry cannot load tells its caller why at once', (t) => {
  const b = bridge(t, { workerUrl: siblingModuleUrl(import.meta.url, './sync-no-such-worker') });
  const err = catchSync(() => b.call('echo', [1], LONG));
  assert.equal((err as FhirgateError).code, 'ERR_CLOSED');
  assert.match(err.message, /failed to start: .*sync-no-such-worker/);
  assert.equal((catchSync(() => b.call('echo', [1], LONG)) as FhirgateError).code, 'ERR_CLOSED');
});

test('the gateway worker serves only the sync gateway methods', (t) => {
  const b = bridge(t, { workerUrl: siblingModuleUrl(import.meta.url, '../../../src/gateway/sync/gateway-worker'), workerData: { gateway: {}, maxOpenCursors: 1 } });
  // The calling thread parses the connection string once; the worker takes the parsed settings.
  assert.deepEqual(b.call('addCheckedSource', ['s', sourceSettings('fhir://127.0.0.1:9/fhir', undefined, 30_000)], LONG), undefined);
  assert.equal(b.call('sourceBaseUrl', ['s'], LONG), 'http://127.0.0.1:9/fhir');
  for (const method of ['addSource', 'getPoolStatus', 'modify', 'useEvents', 'constructor', '__proto__']) {
    const err = catchSync(() => b.call(method, [], LONG));
    assert.ok(err instanceof TypeError, method);
    assert.match(err.message, /FHIRGateway has no method/);
  }
});

test('send() posts a call without waiting; its answer is dropped but its extra still arrives', (t) => {
  const extras: unknown[] = [];
  const b = bridge(t, { onExtra: (e) => extras.push(e) });
  b.send('echo', ['before start']);
  assert.equal(b.started, false, 'send() never starts the worker');
  assert.equal(b.call('echo', ['first'], LONG), 'first');
  b.send('echo', ['sent']);
  assert.equal(b.call('echo', ['second'], LONG), 'second', 'the answer to send() is not taken for the next call');
  assert.deepEqual(extras, [1, 2, 3], 'the sent call ran once, between the two calls');
  b.close();
  b.send('echo', ['after close']); // nothing to tell: no throw
});
