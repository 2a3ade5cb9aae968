// The facade's CapabilityStatements say what it really serves: the federated base's own (search per
// type and read/vread of its ids, no writes, JSON only, limited to what the sources' own statements list,
// the search parameters every searching source declares), and each source base's (the source's statement
// with the facade's URLs and only the JSON formats, since the facade answers JSON only).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { Client } from 'fhir-kit-client';
import { facadeHarness } from '../support/facade-harness.js';
import { medplumServer } from '../support/medplum-server.js';
import { sandbox } from '../support/sandbox.js';

const KEYS = { fed: 'capable-key-0123456789', ehrOnly: 'ehr-only-key-0123456789', xOnly: 'x-only-key-0123456789ab' };

/** A source whose statement offers XML too, a create, and a search parameter no other source has; counts its requests. */
async function xmlSource(t: TestContext) {
  const state = { count: 0 };
  const server = createServer((_req, res) => {
    state.count++;
    res.writeHead(200, { 'content-type': 'application/fhir+json' });
    res.end(JSON.stringify({
      resourceType: 'CapabilityStatement', status: 'active', kind: 'instance', fhirVersion: '4.0.1',
      format: ['application/fhir+xml', 'application/fhir+json'], patchFormat: ['application/xml-patch+xml', 'application/json-patch+json'],
      rest: [{ mode: 'server', interaction: [{ code: 'transaction' }], resource: [
        { type: 'Patient', interaction: [{ code: 'read' }, { code: 'create' }, { code: 'search-type' }], searchParam: [{ name: 'name', type: 'string' }, { name: 'only-here', type: 'token' }, { name: 'birthdate', type: 'string' }] },
        { type: 'Device', interaction: [{ code: 'create' }] },
      ] }],
    }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  return { state, cs: `fhir://127.0.0.1:${(server.address() as AddressInfo).port}/fhir/` };
}

async function setUp(t: TestContext) {
  const ehr = await sandbox(t, { open: true });
  const mp = await medplumServer(t);
  const x = await xmlSource(t);
  const h = await facadeHarness(t, { ehr: ehr.connectionString(), mp: `fhir://${mp.base.slice('http://'.length)}/`, x: x.cs }, {
    callers: [{ name: 'fed', apiKey: KEYS.fed, sources: '*', scopes: 'system/*.rs' }, { name: 'ehr-only', apiKey: KEYS.ehrOnly, sources: ['ehr'], scopes: 'system/*.rs' }, { name: 'x-only', apiKey: KEYS.xOnly, sources: ['x'], scopes: 'system/*.rs' }],
  }, [...Object.values(KEYS), 's3cr3t-cookie']);
  return { mp, x, h };
}

test('the federated base states what it serves: read, vread and search-type of the types the sources list, no writes, JSON only', async (t) => {
  const { h } = await setUp(t);
  const client = new Client({ baseUrl: `${h.prefix}/all`, customHeaders: { 'x-api-key': KEYS.fed } });
  const cs = (await client.capabilityStatement()) as any;
  assert.equal(cs.resourceType, 'CapabilityStatement');
  assert.equal(cs.kind, 'instance');
  assert.equal(cs.url, `${h.prefix}/all/metadata`);
  assert.equal(cs.implementation.url, `${h.prefix}/all`);
  assert.equal(cs.implementation.description, 'fhirgate federated base over ehr, mp, x');
  assert.deepEqual(cs.format, ['json']);
  assert.equal(cs.patchFormat, undefined, 'no patch: nothing is written here');
  assert.equal(cs.fhirVersion, '4.0.1');
  const [rest] = cs.rest;
  assert.equal(rest.mode, 'server');
  assert.equal(rest.interaction, undefined, 'no transaction, batch or system search, though a source has them');
  const codes = new Set(rest.resource.flatMap((r: any) => r.interaction.map((i: any) => i.code)));
  assert.deepEqual([...codes].sort(), ['read', 'search-type', 'vread'], 'never a write, though the sources list them');
  const patient = rest.resource.find((r: any) => r.type === 'Patient');
  assert.deepEqual(patient.interaction, [{ code: 'read' }, { code: 'vread' }, { code: 'search-type' }]);
  const params = patient.searchParam.map((p: any) => p.name).sort();
  assert.deepEqual(params, ['name'], 'only what every searching source declares alike (birthdate is a date in one, a string in the other)');
  assert.ok(rest.resource.some((r: any) => r.type === 'Observation'), 'the sandbox lists every type');
});

test('a source that gives no statement is named; a caller sees only the sources it may use, the others are not asked', async (t) => {
  const { mp, x, h } = await setUp(t);
  mp.failing = true;
  const res = await fetch(`${h.prefix}/all/metadata`, { headers: { 'x-api-key': KEYS.fed } });
  assert.equal(res.status, 200);
  const cs = (await res.json()) as any;
  assert.match(cs.rest[0].documentation, /No statement from: mp\./);
  assert.equal(cs.implementation.description, 'fhirgate federated base over ehr, x');
  const before = x.state.count;
  const narrow = (await (await fetch(`${h.prefix}/all/metadata`, { headers: { 'x-api-key': KEYS.ehrOnly } })).json()) as any;
  assert.equal(narrow.implementation.description, 'fhirgate federated base over ehr');
  assert.equal(x.state.count, before, 'a source the caller may not use was not asked');
  const onlyX = (await (await fetch(`${h.prefix}/all/metadata`, { headers: { 'x-api-key': KEYS.xOnly } })).json()) as any;
  assert.deepEqual(onlyX.rest[0].resource, [{ type: 'Patient', interaction: [{ code: 'read' }, { code: 'search-type' }], searchParam: [{ name: 'name', type: 'string' }, { name: 'only-here', type: 'token' }, { name: 'birthdate', type: 'string' }], operation: [{ name: 'everything', definition: 'http://hl7.org/fhir/OperationDefinition/Patient-everything' }] }], 'Device is listed for create only: not served here; Patient/$everything is the federated base\'s own');
  assert.equal((await fetch(`${h.prefix}/all/metadata`, { headers: { 'x-api-key': 'not-a-key-0123456789ab' } })).status, 401);
  const xml = await fetch(`${h.prefix}/all/metadata`, { headers: { 'x-api-key': KEYS.fed, accept: 'application/fhir+xml' } });
  assert.equal(xml.status, 406);
  await xml.arrayBuffer();
  assert.equal(h.audits.filter((e) => e.subtype?.[0]?.code === 'capabilities' && e.agent[1].network.address === `${h.prefix}/all`).length, 5, 'each access audited, refusals too');
});

test('a source base\'s statement keeps only the formats the facade speaks (JSON), with the facade\'s URLs', async (t) => {
  const { h } = await setUp(t);
  const x = (await (await fetch(`${h.prefix}/x/metadata`, { headers: { 'x-api-key': KEYS.fed } })).json()) as any;
  assert.deepEqual(x.format, ['application/fhir+json']);
  assert.deepEqual(x.patchFormat, ['application/json-patch+json']);
  assert.equal(x.url, `${h.prefix}/x/metadata`);
  assert.equal(x.implementation.url, `${h.prefix}/x`);
  const ehr = (await (await fetch(`${h.prefix}/ehr/metadata`, { headers: { 'x-api-key': KEYS.fed } })).json()) as any;
  assert.deepEqual(ehr.format, ['json']);
  assert.deepEqual(ehr.rest[0].security, { description: x.rest[0].security.description }, 'the facade\'s security, not the source\'s OAuth endpoints');
  assert.match(ehr.rest[0].security.description, /API key/);
});
