// Issue 37 item 3: every call to a source is labelled with one FHIR interaction of a fixed set, from
// its method and path below the source's base: never an id or a URL.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { interactionOf } from '../../src/gateway/core/interaction-label.js';
import { UPSTREAM_INTERACTIONS } from '../../src/lib/upstream-interactions.js';

test('interactionOf: the FHIR RESTful interaction of a call below the base /fhir/R4', () => {
  const cases: Array<[string, string, string]> = [
    ['GET', '/fhir/R4/Patient/123', 'read'],
    ['GET', '/fhir/R4/Patient/123/_history/2', 'vread'],
    ['GET', '/fhir/R4/Patient', 'search'],
    ['POST', '/fhir/R4/Patient/_search', 'search'],
    ['GET', '/fhir/R4/Patient/123/Observation', 'search'],
    ['GET', '/fhir/R4', 'search'],
    ['GET', '/fhir/R4/Patient/123/_history', 'history'],
    ['GET', '/fhir/R4/Patient/_history', 'history'],
    ['GET', '/fhir/R4/_history', 'history'],
    ['POST', '/fhir/R4/Patient', 'create'],
    ['PUT', '/fhir/R4/Patient/123', 'update'],
    ['PUT', '/fhir/R4/Patient', 'update'],
    ['PATCH', '/fhir/R4/Patient/123', 'patch'],
    ['DELETE', '/fhir/R4/Patient/123', 'delete'],
    ['GET', '/fhir/R4/Patient/123/$everything', 'operation'],
    ['POST', '/fhir/R4/$export', 'operation'],
    ['GET', '/fhir/R4/metadata', 'capabilities'],
    ['POST', '/fhir/R4', 'batch'],
    ['POST', '/fhir/R4/', 'batch'],
    ['GET', '/bulk/files/abc.ndjson', 'other'],
    ['GET', '/fhir/R4x/Patient/1', 'other'],
    ['POST', '/fhir/R4/Patient/123', 'other'],
  ];
  for (const [method, path, expected] of cases) assert.equal(interactionOf(method, '/fhir/R4', path), expected, `${method} ${path}`);
  assert.equal(interactionOf('GET', '', '/Patient/1'), 'read', 'a base at the origin\'s root');
  for (const [method, path] of cases) assert.ok((UPSTREAM_INTERACTIONS as readonly string[]).includes(interactionOf(method, '/fhir/R4', path)));
});
