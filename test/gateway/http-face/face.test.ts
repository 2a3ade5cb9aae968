import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import type { EventDispatcher } from '../../../src/events/types.js';
import { gatewayMountable } from '../../../src/gateway/http-face/mountable.js';
import { isResourceType } from '../../../src/fhir/index.js';
import { fakeRequest } from '../../support/route-request.js';
import { call, makeFacts, routeOf } from './fixtures.js';
import { join } from 'node:path';
import { ROOT } from '../../support/code-tree.js';

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

function withHandlers() {
  const probe = makeFacts();
  probe.registry.transform('Patient', (id) => ({ resourceType: 'Patient', id }));
  probe.registry.transform('Observation', (id) => ({ resourceType: 'Observation', id, status: 'final', code: {} }));
  probe.registry.aggregate('Observation', () => ({ resourceType: 'Bundle', type: 'searchset' }));
  return { ...probe, face: gatewayMountable(probe.facts) };
}

test('is a gateway mounted at /fhir with four GET routes; only /metadata is public', () => {
  const { face } = withHandlers();
  assert.equal(face.kind, 'gateway');
  assert.equal(face.defaultPath, '/fhir');
  const routes = face.routes();
  assert.deepEqual(
    routes.map((r) => `${r.method} ${r.path}`),
    ['GET /transform/:type/:id', 'GET /aggregate/:type', 'GET /metadata', 'GET /status'],
  );
  assert.deepEqual(routes.filter((r) => r.public === true).map((r) => r.path), ['/metadata']);
});

test('GET /metadata is a CapabilityStatement listing each handled type with its interactions and paths', async () => {
  const { face } = withHandlers();
  const reply = await call(routeOf(face, '/metadata'), fakeRequest({ baseUrl: 'http://gw.example:8000/api/fhir' }));
  assert.equal(reply.status, 200);
  assert.match(reply.contentType ?? '', /^application\/fhir\+json/);
  const cs = reply.body;
  assert.equal(cs.resourceType, 'CapabilityStatement');
  assert.equal(cs.status, 'active');
  assert.match(cs.date, ISO_UTC);
  assert.equal(cs.kind, 'instance');
  assert.deepEqual(cs.software, { name: 'fhirgate', version: VERSION });
  assert.equal(cs.implementation.url, 'http://gw.example:8000/api/fhir');
  assert.equal(typeof cs.implementation.description, 'string');
  assert.equal(cs.fhirVersion, '4.0.1');
  assert.deepEqual(cs.format, ['application/fhir+json']);
  assert.equal(cs.rest.length, 1);
  assert.equal(cs.rest[0].mode, 'server');
  const resources = cs.rest[0].resource as Array<{ type: string; interaction: Array<{ code: string; documentation: string }> }>;
  assert.deepEqual(resources.map((r) => r.type), ['Patient', 'Observation']);
  assert.deepEqual(resources[0]?.interaction.map((i) => i.code), ['read']);
  assert.deepEqual(resources[1]?.interaction.map((i) => i.code), ['read', 'search-type']);
  assert.match(resources[0]?.interaction[0]?.documentation ?? '', /GET http:\/\/gw\.example:8000\/api\/fhir\/transform\/Patient\/\{id\}\?source=\{source\}/);
  assert.match(resources[1]?.interaction[1]?.documentation ?? '', /\/api\/fhir\/aggregate\/Observation\?patient_id=\{patient_id\}&sources=\{sources\}/);
  for (const r of resources) assert.ok(isResourceType(r.type));
});

test('GET /metadata with no handlers has no empty resource array (FHIR JSON forbids empty arrays)', async () => {
  const face = gatewayMountable(makeFacts().facts);
  const cs = (await call(routeOf(face, '/metadata'), fakeRequest())).body;
  assert.deepEqual(Object.keys(cs.rest[0]).sort(), ['documentation', 'mode']);
  assert.doesNotMatch(JSON.stringify(cs), /\[\]/);
});

test('GET /status gives type, version, UTC time, sources, pool, operations with prefixed endpoints, events', async () => {
  const { face } = withHandlers();
  const reply = await call(routeOf(face, '/status'), fakeRequest({ baseUrl: 'http://127.0.0.1:9/api/fhir' }));
  assert.equal(reply.status, 200);
  assert.match(reply.contentType ?? '', /^application\/json/);
  const s = reply.body;
  assert.equal(s.gateway_type, 'AsyncFHIRGateway');
  assert.equal(s.status, 'active');
  assert.equal(s.version, VERSION);
  assert.match(s.timestamp, ISO_UTC);
  assert.deepEqual(s.sources, { count: 2, names: ['epic', 'cerner'] });
  assert.deepEqual(s.connection_pool, { limits: { max_connections: 100 }, totals: { active: 0, idle: 1, queued: 0 } });
  assert.deepEqual(s.supported_operations, [
    { type: 'Patient', operation: 'transform', endpoint: '/api/fhir/transform/Patient/{id}', method: 'GET', parameters: ['id', 'source'] },
    { type: 'Observation', operation: 'transform', endpoint: '/api/fhir/transform/Observation/{id}', method: 'GET', parameters: ['id', 'source'] },
    { type: 'Observation', operation: 'aggregate', endpoint: '/api/fhir/aggregate/Observation', method: 'GET', parameters: ['patient_id', 'sources'] },
  ]);
  assert.deepEqual(s.events, { enabled: true });
});

test('GET /status at the root prefix, and with no pool, no sources and events turned off by the host', async () => {
  const probe = makeFacts({ poolStatus: () => null, sourceNames: () => [], className: 'FHIRGateway' });
  probe.registry.transform('Patient', (id) => ({ resourceType: 'Patient', id }));
  const face = gatewayMountable(probe.facts);
  face.useEvents(null);
  const s = (await call(routeOf(face, '/status'), fakeRequest({ baseUrl: 'http://127.0.0.1:9' }))).body;
  assert.equal(s.gateway_type, 'FHIRGateway');
  assert.deepEqual(s.sources, { count: 0, names: [] });
  assert.deepEqual(s.connection_pool, { note: 'the synchronous FHIRGateway has no connection pool' });
  assert.equal(s.supported_operations[0].endpoint, '/transform/Patient/{id}');
  assert.deepEqual(s.events, { enabled: false });
  assert.deepEqual(probe.dispatchers, [null]);
});

test("events.enabled follows the gateway's event gate, which the host switches", async () => {
  const dispatcher: EventDispatcher = { emit: () => {}, register: () => () => {}, drain: async () => {} };
  const probe = makeFacts();
  const face = gatewayMountable(probe.facts);
  const enabled = async () => (await call(routeOf(face, '/status'), fakeRequest())).body.events.enabled;
  face.useEvents(null);
  assert.equal(await enabled(), false);
  face.useEvents(dispatcher);
  assert.equal(await enabled(), true);
  assert.deepEqual(probe.dispatchers, [null, dispatcher]);
});

test('status() is the /gateway/status entry; never a connection string', () => {
  const { face } = withHandlers();
  assert.deepEqual(face.status(), {
    status: 'active',
    sources: ['epic', 'cerner'],
    connection_pool: { limits: { max_connections: 100 }, totals: { active: 0, idle: 1, queued: 0 } },
  });
  const noPool = gatewayMountable(makeFacts({ poolStatus: () => null }).facts);
  assert.deepEqual(noPool.status()['connection_pool'], { note: 'the synchronous FHIRGateway has no connection pool' });
});

test('openapi() has one operation per handler plus /metadata and /status, unique ids, class tag, parameters', () => {
  const { face, registry } = withHandlers();
  const paths = face.openapi();
  assert.deepEqual(Object.keys(paths), [
    '/transform/Patient/{id}',
    '/transform/Observation/{id}',
    '/aggregate/Observation',
    '/metadata',
    '/status',
  ]);
  const ops = Object.values(paths).map((item) => item.get!);
  const ids = ops.map((op) => op.operationId);
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual(ids, [
    'AsyncFHIRGateway_transform_Patient',
    'AsyncFHIRGateway_transform_Observation',
    'AsyncFHIRGateway_aggregate_Observation',
    'AsyncFHIRGateway_metadata',
    'AsyncFHIRGateway_status',
  ]);
  for (const op of ops) {
    assert.deepEqual(op.tags, ['AsyncFHIRGateway']);
    assert.ok(op.responses['200']);
  }
  const transform = paths['/transform/Patient/{id}']!.get!;
  assert.deepEqual(
    transform.parameters?.map((p) => [p.name, p.in, p.required]),
    [['id', 'path', true], ['source', 'query', false]],
  );
  const idPattern = new RegExp(String(transform.parameters?.[0]?.schema['pattern']));
  assert.deepEqual(['a-1.v2', '..', '.', 'a/b', 'x'.repeat(65)].map((id) => idPattern.test(id)), [true, false, false, false, false]);
  assert.ok(transform.responses['404'] && transform.responses['502'] && transform.responses['504']);
  const aggregate = paths['/aggregate/Observation']!.get!;
  const [patientId, sources] = aggregate.parameters ?? [];
  assert.deepEqual([patientId?.name, patientId?.in, patientId?.required], ['patient_id', 'query', true]);
  assert.deepEqual([sources?.name, sources?.in, sources?.required, sources?.style, sources?.explode], ['sources', 'query', false, 'form', true]);
  assert.equal(sources?.schema['type'], 'array');
  registry.aggregate('Condition', () => ({ resourceType: 'Bundle', type: 'searchset' }));
  assert.ok(face.openapi()['/aggregate/Condition'], 'handlers registered later appear');
});

test('openapi(): each error answer\'s example is the text that status really carries', () => {
  const { face } = withHandlers();
  const paths = face.openapi();
  const diagnostics = (path: string) => Object.fromEntries(Object.entries(paths[path]!.get!.responses)
    .filter(([status]) => status !== '200')
    .map(([status, r]) => [status, (r.content?.['application/fhir+json']?.example as { issue: Array<{ code: string; diagnostics: string }> }).issue[0]]));
  const aggregate = diagnostics('/aggregate/Observation');
  assert.deepEqual(aggregate['400'], { severity: 'error', code: 'required', diagnostics: 'the patient_id query parameter is required' });
  assert.match(aggregate['404']!.diagnostics, /not found/);
  assert.equal(aggregate['500']!.diagnostics, 'the aggregate handler for Observation failed');
  const transform = diagnostics('/transform/Patient/{id}');
  assert.equal(transform['400']!.code, 'value');
  assert.equal(transform['410']!.diagnostics, 'Patient/example-id was deleted at the source');
  assert.equal(transform['504']!.code, 'timeout');
});

test('close() closes the gateway', async () => {
  const probe = makeFacts();
  const face = gatewayMountable(probe.facts);
  assert.equal(probe.closes, 0);
  await face.close();
  assert.equal(probe.closes, 1);
});
