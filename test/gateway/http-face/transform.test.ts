import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FHIRHTTPError, FhirgateError } from '../../../src/errors.js';
import { gatewayMountable } from '../../../src/gateway/http-face/mountable.js';
import type { Patient } from '../../../src/fhir/index.js';
import { fakeRequest } from '../../support/route-request.js';
import { call, makeFacts, routeOf } from './fixtures.js';

const PATH = '/transform/:type/:id';

function setup() {
  const probe = makeFacts();
  const route = routeOf(gatewayMountable(probe.facts), PATH);
  return { ...probe, route };
}

test('serves a sync transform handler: 200 FHIR JSON, id and source passed, one event', async () => {
  const { registry, route, events } = setup();
  const seen: Array<[string, string | undefined]> = [];
  registry.transform('Patient', (id, source) => {
    seen.push([id, source]);
    return { resourceType: 'Patient', id, active: true };
  });
  const req = fakeRequest({ params: { type: 'Patient', id: 'p-1.2' }, query: 'source=epic' });
  const reply = await call(route, req);
  assert.equal(reply.status, 200);
  assert.match(reply.contentType ?? '', /^application\/fhir\+json/);
  assert.deepEqual(reply.body, { resourceType: 'Patient', id: 'p-1.2', active: true });
  assert.deepEqual(seen, [['p-1.2', 'epic']]);
  assert.deepEqual(events, [
    ['fhir.patient.transform', { resource_type: 'Patient', resource_id: 'p-1.2', source: 'epic', operation: 'transform' }],
  ]);
});

test('awaits an async transform handler; no or empty source gives undefined', async () => {
  const { registry, route, events } = setup();
  const sources: Array<string | undefined> = [];
  registry.transform('Observation', async (id, source) => {
    sources.push(source);
    await new Promise((resolve) => setImmediate(resolve));
    return { resourceType: 'Observation', id, status: 'final', code: { text: 'x' } };
  });
  for (const query of ['', 'source=']) {
    const req = fakeRequest({ params: { type: 'Observation', id: 'o1' }, query });
    const reply = await call(route, req);
    assert.equal(reply.status, 200);
    assert.equal(reply.body.resourceType, 'Observation');
  }
  assert.deepEqual(sources, [undefined, undefined]);
  assert.equal(events[0]?.[1]['source'], null);
});

test('serves handlers registered after the routes were read', async () => {
  const { registry, route } = setup();
  const req = fakeRequest({ params: { type: 'Patient', id: '1' } });
  assert.equal((await call(route, req)).status, 404);
  registry.transform('Patient', (id) => ({ resourceType: 'Patient', id }));
  assert.equal((await call(route, fakeRequest({ params: { type: 'Patient', id: '1' } }))).status, 200);
});

test('an unknown type name or a type without handler is 404 OperationOutcome', async () => {
  const { registry, route, events } = setup();
  registry.aggregate('Patient', () => ({ resourceType: 'Bundle', type: 'searchset' }));
  const unknown = await call(route, fakeRequest({ params: { type: 'Patent', id: '1' } }));
  assert.equal(unknown.status, 404);
  assert.match(unknown.contentType ?? '', /^application\/fhir\+json/);
  assert.equal(unknown.body.resourceType, 'OperationOutcome');
  assert.equal(unknown.body.issue[0].code, 'not-found');
  assert.match(unknown.body.issue[0].diagnostics, /"Patent" is not a FHIR resource type/);
  const unhandled = await call(route, fakeRequest({ params: { type: 'Patient', id: '1' } }));
  assert.equal(unhandled.status, 404);
  assert.match(unhandled.body.issue[0].diagnostics, /no transform handler is registered for Patient/);
  assert.deepEqual(events, []);
});

test('an invalid id is 400 and the handler is not called', async () => {
  const { registry, route } = setup();
  let calls = 0;
  registry.transform('Patient', (id) => {
    calls += 1;
    return { resourceType: 'Patient', id };
  });
  for (const id of ['a/b', 'x'.repeat(65), 'a b', '']) {
    const reply = await call(route, fakeRequest({ params: { type: 'Patient', id } }));
    assert.equal(reply.status, 400, id);
    assert.equal(reply.body.issue[0].code, 'value');
  }
  assert.equal(calls, 0);
});

test('a result of another resource type, or no resource, is a 500 handler bug, logged', async () => {
  const { registry, route, events } = setup();
  registry.transform('Patient', () => ({ resourceType: 'Observation', status: 'final', code: {} }) as unknown as Patient);
  registry.transform('Practitioner', () => undefined as unknown as Patient as never);
  const req = fakeRequest({ params: { type: 'Patient', id: '1' } });
  const logs = req.log.lines;
  const reply = await call(route, req);
  assert.equal(reply.status, 500);
  assert.equal(reply.body.resourceType, 'OperationOutcome');
  assert.match(reply.body.issue[0].diagnostics, /did not return a Patient resource/);
  assert.equal(logs[0]?.level, 'error');
  assert.equal(logs[0]?.fields?.['got'], 'Observation');
  const none = await call(route, fakeRequest({ params: { type: 'Practitioner', id: '1' } }));
  assert.equal(none.status, 500);
  assert.deepEqual(events, []);
});

test('a handler that throws is 500 with a generic message; the details are logged, not sent', async () => {
  const { registry, route, events } = setup();
  registry.transform('Patient', () => {
    throw new Error('db password hunter2 rejected');
  });
  registry.transform('Observation', async () => Promise.reject('plain string'));
  const req = fakeRequest({ params: { type: 'Patient', id: '1' } });
  const logs = req.log.lines;
  const reply = await call(route, req);
  assert.equal(reply.status, 500);
  assert.equal(reply.body.issue[0].code, 'exception');
  assert.equal(reply.body.issue[0].diagnostics, 'the transform handler for Patient failed');
  assert.doesNotMatch(reply.text, /hunter2|stack|at /);
  assert.equal(logs.length, 2);
  assert.equal(logs[0]?.level, 'error');
  assert.match(String(logs[0]?.fields?.['error']), /hunter2/);
  assert.match(String(logs[0]?.fields?.['at']), /test[/\\]gateway[/\\]http-face[/\\]transform\.test\.[jt]s:\d+:\d+$/, 'where the handler threw');
  assert.doesNotMatch(JSON.stringify(logs[0]), /\n\s+at /, 'no stack on the error line');
  assert.equal(logs[1]?.level, 'debug', 'the stack only at debug');
  assert.match(String(logs[1]?.fields?.['stack']), /^Error: db password hunter2 rejected\n\s+at /);
  const rejected = await call(route, fakeRequest({ params: { type: 'Observation', id: '1' } }));
  assert.equal(rejected.status, 500);
  assert.deepEqual(events, []);
});

const upstreamCases: Array<{ title: string; error: unknown; status: number; code: string; text?: RegExp }> = [
  {
    title: 'upstream 404 passes through, naming the reference',
    error: new FHIRHTTPError('read Patient/9 failed: 404 Not Found: secret-diag', { status: 404, operation: 'read', reference: 'Patient/9' }),
    status: 404,
    code: 'not-found',
    text: /Patient\/9 was not found at the source/,
  },
  {
    title: 'upstream 410 passes through',
    error: new FHIRHTTPError('read Patient/9 failed: 410 Gone secret-diag', { status: 410, reference: 'Patient/9' }),
    status: 410,
    code: 'deleted',
    text: /Patient\/9 was deleted/,
  },
  {
    title: 'upstream 401 is 502',
    error: new FHIRHTTPError('read failed: 401 secret-diag', { status: 401 }),
    status: 502,
    code: 'security',
    text: /refused the gateway's credentials \(HTTP 401\)/,
  },
  {
    title: 'upstream 403 is 502',
    error: new FHIRHTTPError('read failed: 403 secret-diag', { status: 403 }),
    status: 502,
    code: 'security',
  },
  {
    title: 'upstream 500 is 502',
    error: new FHIRHTTPError('read failed: 500 secret-diag', { status: 500 }),
    status: 502,
    code: 'exception',
    text: /answered HTTP 500/,
  },
  { title: 'a time-out is 504', error: new FhirgateError('ERR_TIMEOUT', 'secret-diag'), status: 504, code: 'timeout' },
  { title: 'a network failure is 502', error: new FhirgateError('ERR_NETWORK', 'secret-diag'), status: 502, code: 'transient' },
  { title: 'a token failure is 502', error: new FhirgateError('ERR_AUTH_TOKEN', 'secret-diag'), status: 502, code: 'security' },
  { title: 'a closed gateway is 503', error: new FhirgateError('ERR_CLOSED', 'secret-diag'), status: 503, code: 'transient' },
  { title: 'another gateway error is 500', error: new FhirgateError('ERR_AUTH_KEY', 'secret-diag'), status: 500, code: 'exception' },
];

for (const c of upstreamCases) {
  test(`${c.title}, with a generic OperationOutcome`, async () => {
    const { registry, route } = setup();
    registry.transform('Patient', async () => {
      throw c.error;
    });
    const req = fakeRequest({ params: { type: 'Patient', id: '9' } });
    const logs = req.log.lines;
    const reply = await call(route, req);
    assert.equal(reply.status, c.status);
    assert.equal(reply.body.resourceType, 'OperationOutcome');
    assert.equal(reply.body.issue[0].code, c.code);
    if (c.text) assert.match(reply.body.issue[0].diagnostics, c.text);
    assert.doesNotMatch(reply.text, /secret-diag/);
    assert.equal(logs[0]?.level, c.status >= 500 ? 'error' : 'warn');
    assert.match(JSON.stringify(logs[0]?.fields), /secret-diag/);
  });
}

test('an unknown source is 400 when the request named it, 500 when the handler chose it', async () => {
  const { registry, route } = setup();
  registry.transform('Patient', async () => {
    throw new FhirgateError('ERR_UNKNOWN_SOURCE', 'unknown source "x"; registered: epic');
  });
  const named = await call(route, fakeRequest({ params: { type: 'Patient', id: '1' }, query: 'source=x' }));
  assert.equal(named.status, 400);
  assert.equal(named.body.issue[0].code, 'value');
  const chosen = await call(route, fakeRequest({ params: { type: 'Patient', id: '1' } }));
  assert.equal(chosen.status, 500);
});
