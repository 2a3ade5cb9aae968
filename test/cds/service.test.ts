import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { CDSHooksService, type CDSCard } from '../../src/cds/index.js';
import { MOUNT } from '../../src/mount/index.js';
import { localHandler } from '../../src/events/index.js';
import { recordingDispatcher } from '../support/recording-dispatcher.js';
import { fakeRequest } from '../support/route-request.js';
import { serve } from '../support/serve.js';
import { post } from './post-json.js';

const card = (summary: string): CDSCard => ({ summary, indicator: 'info', source: { label: 'fhirgate tests' } });
const call = (over: Record<string, unknown> = {}) => ({
  hook: 'patient-view',
  hookInstance: randomUUID(),
  context: { userId: 'Practitioner/doc', patientId: '123' },
  ...over,
});

function greetingService() {
  const dispatcher = recordingDispatcher();
  const cds = new CDSHooksService({ dispatcher });
  cds.hook('patient-view', {
    id: 'greet', title: 'Greeting', description: 'Greets the patient', usageRequirements: 'none',
    prefetch: { patient: 'Patient/{{context.patientId}}' },
  }, (req, ctx) => ({ cards: [card(`Hello ${String(req.prefetch.patient?.id)} from ${ctx.serviceId}`)] }));
  cds.hook('order-sign', { id: 'quiet', description: 'Never says anything' }, () => ({ cards: [] }));
  return { cds, dispatcher };
}

test('discovery lists every service with absent fields omitted, on both paths', async (t) => {
  const { cds } = greetingService();
  const { baseUrl: base } = await serve(t, cds);
  for (const path of ['/cds-services', '/cds-discovery']) {
    const response = await fetch(`${base}${path}`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(await response.json(), {
      services: [
        { hook: 'patient-view', title: 'Greeting', description: 'Greets the patient', id: 'greet', prefetch: { patient: 'Patient/{{context.patientId}}' }, usageRequirements: 'none' },
        { hook: 'order-sign', description: 'Never says anything', id: 'quiet' },
      ],
    });
  }
});

test('an empty discovery is still 200', async (t) => {
  const { baseUrl: base } = await serve(t, new CDSHooksService({ dispatcher: recordingDispatcher() }));
  const response = await fetch(`${base}/cds-services`);
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { services: [] });
});

test('a call gets validated cards with uuids and emits cdshooks.<hook>', async (t) => {
  const { cds, dispatcher } = greetingService();
  const { baseUrl: base } = await serve(t, cds, { dispatcher });
  const body = call({ prefetch: { patient: { resourceType: 'Patient', id: '123' } } });
  const r = await post(`${base}/cds-services/greet`, body);
  assert.equal(r.status, 200);
  assert.equal(r.body.cards.length, 1);
  assert.equal(r.body.cards[0].summary, 'Hello 123 from greet');
  assert.match(r.body.cards[0].uuid, /^[0-9a-f-]{36}$/);
  assert.deepEqual(dispatcher.events, [['cdshooks.patient-view', {
    service_id: 'greet', hook: 'patient-view', hook_instance: body.hookInstance, cards_count: 1, patient_id: '123',
  }]]);
});

test('no advice answers 200 with an empty card list; fhir+json with charset is accepted', async (t) => {
  const { cds, dispatcher } = greetingService();
  const { baseUrl: base } = await serve(t, cds, { dispatcher });
  const bundle = { resourceType: 'Bundle', type: 'collection' };
  const r = await post(`${base}/cds-services/quiet`, call({ hook: 'order-sign', context: { userId: 'Practitioner/1', patientId: 'p1', draftOrders: bundle } }), {
    'content-type': 'application/fhir+json; charset=utf-8',
  });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { cards: [] });
  assert.equal(dispatcher.events[0]?.[0], 'cdshooks.order-sign');
  assert.equal(dispatcher.events[0]?.[1].cards_count, 0);
});

test('unknown id 404, wrong content type 415, too large 413, bad JSON 400, mismatched hook 400', async (t) => {
  const dispatcher = recordingDispatcher();
  const cds = new CDSHooksService({ dispatcher, bodyLimit: 2048 });
  cds.hook('patient-view', { id: 'greet', description: 'x' }, () => ({ cards: [] }));
  const { baseUrl: base } = await serve(t, cds, { dispatcher });
  const missing = await post(`${base}/cds-services/nope`, call());
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.body, { error: { code: 'ERR_NOT_FOUND', message: 'no CDS service "nope"' } });
  const text = await post(`${base}/cds-services/greet`, JSON.stringify(call()), { 'content-type': 'text/plain' });
  assert.equal(text.status, 415);
  assert.equal(text.body.error.code, 'ERR_UNSUPPORTED_MEDIA_TYPE');
  const big = await post(`${base}/cds-services/greet`, call({ context: { userId: 'Practitioner/1', patientId: '1', pad: 'x'.repeat(5000) } }));
  assert.equal(big.status, 413);
  assert.equal(big.body.error.code, 'ERR_BODY_TOO_LARGE');
  const broken = await post(`${base}/cds-services/greet`, '{"hook":');
  assert.equal(broken.status, 400);
  assert.equal(broken.body.error.code, 'ERR_CDS_REQUEST');
  const wrongHook = await post(`${base}/cds-services/greet`, call({ hook: 'order-sign' }));
  assert.equal(wrongHook.status, 400);
  assert.deepEqual(wrongHook.body, { error: { code: 'ERR_CDS_REQUEST', message: 'hook must be "patient-view" for this service', field: 'hook' } });
  const noPatient = await post(`${base}/cds-services/greet`, call({ context: { userId: 'Practitioner/1' } }));
  assert.equal(noPatient.status, 400);
  assert.equal(noPatient.body.error.field, 'context.patientId');
  assert.deepEqual(dispatcher.events, []);
});

test('an invalid card is a 500 naming the card and field, and is logged', async (t) => {
  const cds = new CDSHooksService({ dispatcher: recordingDispatcher() });
  cds.hook('patient-view', { id: 'bad', description: 'x' }, () => ({ cards: [card('fine'), { ...card('bad'), indicator: 'hint' }] }) as never);
  const { baseUrl: base, logs } = await serve(t, cds);
  const r = await post(`${base}/cds-services/bad`, call());
  assert.equal(r.status, 500);
  assert.deepEqual(r.body, {
    error: { code: 'ERR_CDS_CARD', message: 'cards[1].indicator must be one of info, warning, critical', field: 'cards[1].indicator' },
  });
  assert.ok(logs.some((l) => l.level === 'error' && l.fields?.field === 'cards[1].indicator' && l.fields?.service_id === 'bad'));
});

test('a throwing handler is a 500 with a generic message and no stack', async (t) => {
  const cds = new CDSHooksService({ dispatcher: recordingDispatcher() });
  cds.hook('patient-view', { id: 'boom', description: 'x' }, () => {
    throw new Error('database password is hunter2');
  });
  cds.hook('patient-view', { id: 'none', description: 'x' }, () => undefined as never);
  const { baseUrl: base, logs } = await serve(t, cds);
  const r = await post(`${base}/cds-services/boom`, call());
  assert.equal(r.status, 500);
  assert.deepEqual(r.body, { error: { code: 'ERR_HANDLER', message: 'the CDS service failed to process the request' } });
  assert.ok(logs.some((l) => l.level === 'error' && l.fields?.error === 'database password is hunter2'));
  const none = await post(`${base}/cds-services/none`, call());
  assert.equal(none.status, 500);
  assert.equal(none.body.error.code, 'ERR_CDS_CARD');
  assert.equal(none.body.error.field, 'response');
});

test('feedback is validated, handed to the service feedback handler and emitted', async (t) => {
  const dispatcher = recordingDispatcher();
  const received: unknown[] = [];
  const cds = new CDSHooksService({ dispatcher });
  cds.hook('patient-view', { id: 'greet', description: 'x', feedback: (items, ctx) => void received.push([ctx.serviceId, items]) }, () => ({ cards: [] }));
  cds.hook('patient-view', { id: 'plain', description: 'x' }, () => ({ cards: [] }));
  cds.hook('patient-view', { id: 'fails', description: 'x', feedback: () => Promise.reject(new Error('no db')) }, () => ({ cards: [] }));
  const { baseUrl: base } = await serve(t, cds, { dispatcher });
  const feedback = [
    { card: 'c1', outcome: 'accepted', acceptedSuggestions: [{ id: 's1' }], outcomeTimestamp: '2026-11-22T10:00:00Z' },
    { card: 'c2', outcome: 'overridden', outcomeTimestamp: '2026-11-22T10:00:01Z' },
  ];
  const ok = await post(`${base}/cds-services/greet/feedback`, { feedback });
  assert.equal(ok.status, 200);
  assert.deepEqual(received, [['greet', feedback]]);
  assert.deepEqual(dispatcher.events, [['cdshooks.feedback', { service_id: 'greet', feedback_count: 2, outcomes: 'accepted,overridden' }]]);
  assert.equal((await post(`${base}/cds-services/plain/feedback`, { feedback })).status, 200);
  const bad = await post(`${base}/cds-services/greet/feedback`, { feedback: [{ card: 'c1', outcome: 'accepted', outcomeTimestamp: 'now' }] });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error.field, 'feedback[0].outcomeTimestamp');
  assert.equal((await post(`${base}/cds-services/nope/feedback`, { feedback })).status, 404);
  const failing = await post(`${base}/cds-services/fails/feedback`, { feedback });
  assert.equal(failing.status, 500);
  assert.equal(failing.body.error.code, 'ERR_HANDLER');
});

test('status, openapi and events follow the host', async () => {
  const { cds, dispatcher } = greetingService();
  cds.hook('patient-view', { id: 'second', description: 'x' }, () => ({ cards: [] }));
  const m = cds[MOUNT]();
  assert.equal(m.kind, 'service');
  assert.equal(m.defaultPath, '/cds');
  assert.deepEqual(m.status(), { status: 'active', hooks: ['patient-view', 'order-sign'], services: ['greet', 'quiet', 'second'] });
  assert.deepEqual(m.routes().map((r) => `${r.method} ${r.path} ${r.public === true}`), [
    'GET /cds-services true', 'GET /cds-discovery true', 'POST /cds-services/:id false', 'POST /cds-services/:id/feedback false',
  ]);
  const paths = m.openapi();
  assert.ok(paths['/cds-services']?.get);
  assert.ok(paths['/cds-discovery']?.get);
  assert.deepEqual(paths['/cds-services/{id}']?.post?.parameters?.[0]?.schema, { type: 'string', enum: ['greet', 'quiet', 'second'] });
  assert.ok(paths['/cds-services/{id}/feedback']?.post);
  assert.equal(paths['/cds-services/greet']?.post?.summary, 'Greeting');
  assert.equal(paths['/cds-services/quiet']?.post?.description, 'Never says anything');
  const other = recordingDispatcher();
  m.useEvents(other);
  const route = m.routes()[2]!;
  const fakeReq = (id: string) =>
    fakeRequest({ method: 'POST', baseUrl: 'http://h/cds', path: `/cds-services/${id}`, params: { id }, headers: { 'content-type': 'application/json' }, body: JSON.stringify(call()) });
  assert.equal((await route.handle(fakeReq('second'))).status, 200);
  assert.equal(other.events.length, 1);
  m.useEvents(null);
  assert.equal((await route.handle(fakeReq('second'))).status, 200);
  assert.equal(other.events.length, 1);
  assert.equal(dispatcher.events.length, 0);
  await m.close();
  await cds.close();
  assert.equal(m.status().status, 'closed');
  const closed = await route.handle(fakeReq('second'));
  assert.equal(closed.status, 503);
  assert.throws(() => cds.hook('patient-view', { id: 'late', description: 'x' }, () => ({ cards: [] })), { code: 'ERR_CLOSED' });
});

test('events go to localHandler by default', async () => {
  const cds = new CDSHooksService();
  cds.hook('patient-view', { id: 'greet', description: 'x' }, () => ({ cards: [] }));
  const seen: unknown[] = [];
  const off = localHandler.register('cdshooks.patient-view', ([, payload]) => void seen.push(payload.service_id));
  try {
    const route = cds[MOUNT]().routes()[2]!;
    const reply = await route.handle(
      fakeRequest({ method: 'POST', baseUrl: 'http://h/cds', path: '/cds-services/greet', params: { id: 'greet' }, headers: { 'content-type': 'application/json' }, body: JSON.stringify(call()) }),
    );
    assert.equal(reply.status, 200);
    await localHandler.drain();
    assert.deepEqual(seen, ['greet']);
  } finally {
    off();
  }
});

test('registration: wrapper form, duplicate ids and misuse', () => {
  const cds = new CDSHooksService({ dispatcher: recordingDispatcher() });
  const handler = async () => ({ cards: [] });
  assert.equal(cds.hook('patient-view', { id: 'wrapped', description: 'x' })(handler), handler);
  assert.deepEqual(cds.discovery().services.map((s) => s.id), ['wrapped']);
  assert.throws(() => cds.hook('order-sign', { id: 'wrapped', description: 'y' }, handler), { code: 'ERR_DUPLICATE_NAME' });
  const misuse: Array<[() => unknown, RegExp]> = [
    [() => cds.hook('', { id: 'a', description: 'x' }, handler), /hookType/],
    [() => cds.hook('patient-view', null as never, handler), /definition must be an object/],
    [() => cds.hook('patient-view', { id: 'a/b', description: 'x' }, handler), /definition\.id/],
    [() => cds.hook('patient-view', { id: 'a', description: '' }, handler), /definition\.description/],
    [() => cds.hook('patient-view', { id: 'a', description: 'x', title: 3 as never }, handler), /definition\.title/],
    [() => cds.hook('patient-view', { id: 'a', description: 'x', prefetch: 'x' as never }, handler), /definition\.prefetch/],
    [() => cds.hook('patient-view', { id: 'a', description: 'x', prefetch: { p: 'Patient/{{context.x}}' } }, handler), /prefetch\.p/],
    [() => cds.hook('patient-view', { id: 'a', description: 'x', feedback: 'x' as never }, handler), /definition\.feedback/],
    [() => cds.hook('patient-view', { id: 'a', description: 'x', auth: 'x' as never }, handler), /definition\.auth/],
    [() => cds.hook('patient-view', { id: 'a', description: 'x' }, 'x' as never), /handler must be a function/],
    [() => new CDSHooksService({ bodyLimit: 0 }), /bodyLimit/],
    [() => new CDSHooksService({ prefetchTimeoutMs: -1 }), /prefetchTimeoutMs/],
    [() => new CDSHooksService({ prefetchMaxBytes: Number.NaN }), /prefetchMaxBytes/],
    [() => new CDSHooksService({ allowInsecureFhirServer: 'yes' as never }), /allowInsecureFhirServer/],
    [() => new CDSHooksService({ dispatcher: {} as never }), /dispatcher/],
    [() => new CDSHooksService(null as never), /options must be an object/],
  ];
  for (const [fn, message] of misuse) assert.throws(fn, (err: Error) => (err instanceof TypeError || err instanceof RangeError) && message.test(err.message));
  assert.deepEqual(cds.discovery().services.map((s) => s.id), ['wrapped']);
});

test('the public surface of fhirgate/cds', async () => {
  const api = await import('../../src/cds/index.js');
  assert.deepEqual(Object.keys(api).sort(), ['CDSError', 'CDSHooksService', 'CDS_DEFAULTS']);
  assert.ok(Object.isFrozen(api.CDS_DEFAULTS) && Object.isFrozen(api.CDS_DEFAULTS.auth));
});

test('close is idempotent, forgets client-auth caches and answers 503 afterwards; asyncDispose closes', async (t) => {
  const auth = { issuers: [{ issuer: 'https://ehr.example', jwksUrls: ['https://ehr.example/jwks'] }] };
  const cds = new CDSHooksService({ dispatcher: recordingDispatcher(), auth });
  cds.hook('patient-view', { id: 'own', description: 'x', auth }, () => ({ cards: [] }));
  cds.hook('patient-view', { id: 'open', description: 'x', auth: false }, () => ({ cards: [] }));
  const { baseUrl: base } = await serve(t, cds);
  assert.equal((await post(`${base}/cds-services/open`, call())).status, 200);
  assert.equal((await post(`${base}/cds-services/own`, call())).status, 401);
  assert.equal(cds[MOUNT]().routes()[2]?.public, true, 'the JWT is the credential: no API key on top');
  await cds[Symbol.asyncDispose]();
  await cds.close();
  const closed = await post(`${base}/cds-services/open`, call());
  assert.equal(closed.status, 503);
  assert.equal(closed.body.error.code, 'ERR_CLOSED');
  assert.equal((await fetch(`${base}/cds-services`)).status, 200);
});

test('a dispatcher whose emit throws or rejects does not turn a good call or feedback into an error', async (t) => {
  let emitted = 0;
  const dispatcher = {
    emit: ((name: string) => {
      emitted++;
      if (name.endsWith('feedback')) return Promise.reject(new Error('bus down'));
      throw new Error('bus down');
    }) as never,
    register: () => () => {},
    drain: async () => {},
  };
  const cds = new CDSHooksService({ dispatcher });
  cds.hook('patient-view', { id: 'greet', description: 'Greets' }, () => ({ cards: [card('Hello')] }));
  const { baseUrl: base } = await serve(t, cds, { dispatcher });
  const write = process.stderr.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    const r = await post(`${base}/cds-services/greet`, call());
    assert.equal(r.status, 200);
    assert.equal(r.body.cards[0].summary, 'Hello');
    const feedback = { feedback: [{ card: r.body.cards[0].uuid, outcome: 'overridden', outcomeTimestamp: '2026-01-01T10:00:00Z' }] };
    assert.equal((await post(`${base}/cds-services/greet/feedback`, feedback)).status, 200);
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.stderr.write = write;
  }
  assert.equal(emitted, 2);
});
