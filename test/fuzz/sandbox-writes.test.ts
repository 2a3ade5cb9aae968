/**
 * Fuzz: the sandbox's write interactions (create, conditional create, update with `If-Match`, delete)
 * with mutated resources, content types and headers. Every answer is a success or a 4xx with an
 * OperationOutcome; never 500, and the sandbox keeps serving reads.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runFuzz } from './lib/fuzz.js';
import type { Random } from './lib/random.js';
import { rawExchange, wireSafe } from './lib/raw-http.js';
import { sandbox as testSandbox } from '../support/sandbox.js';

const PATIENT = {
  resourceType: 'Patient',
  id: 'fuzz-1',
  meta: { versionId: '1', lastUpdated: '2020-01-01T00:00:00Z', tag: [{ code: 'x' }] },
  identifier: [{ system: 'urn:mrn', value: '123' }],
  name: [{ family: 'Doe', given: ['Jane'] }],
  gender: 'female',
  birthDate: '1970-01-01',
};
const IDS = ['fuzz-1', 'fuzz-2', 'a-patient-1', 'x'.repeat(64), 'x'.repeat(65), 'bad id', '..', '%zz', '%00'];

interface Write {
  method: string;
  target: string;
  headers: string[];
  body: Buffer;
}

/** A header value without the control characters Node's own parser refuses. */
const headerSafe = (text: string): string => text.replace(/[\x00-\x08\x0a-\x1f\x7f]/g, '');

function write(rng: Random, base: string): Write {
  const method = rng.pick(['POST', 'PUT', 'PUT', 'DELETE', 'GET']);
  const id = rng.pick(IDS);
  const type = rng.chance(0.9) ? 'Patient' : rng.pick(['Observation', 'Nope', 'patient']);
  const target = wireSafe(method === 'POST' ? `${base}/${type}` : `${base}/${type}/${id}`);
  const resource = rng.chance(0.9) ? rng.mutateJson({ ...PATIENT, id }) : rng.json();
  const body = method === 'POST' || method === 'PUT' ? Buffer.from(JSON.stringify(resource) ?? '') : Buffer.alloc(0);
  const headers = ['Host: sandbox', 'Connection: close', `Content-Length: ${body.length}`];
  if (body.length > 0 && rng.chance(0.95)) headers.push(`Content-Type: ${rng.chance(0.9) ? rng.pick(['application/fhir+json', 'application/json; charset=utf-8']) : rng.pick(['text/plain', 'application/xml'])}`);
  if (rng.chance(0.3)) headers.push(`If-Match: ${headerSafe(rng.pick(['W/"1"', 'W/"2"', '"1"', 'W/1', '*', rng.string(8)]))}`);
  if (method === 'POST' && rng.chance(0.3)) headers.push(`If-None-Exist: ${headerSafe(rng.pick(['identifier=urn:mrn|123', 'family=Doe', 'Patient?gender=female', 'bogus=1', '_count=x', rng.string(20)]))}`);
  if (rng.chance(0.2)) headers.push(`Prefer: ${headerSafe(rng.pick(['return=minimal', 'return=representation', 'return=OperationOutcome', rng.string(12)]))}`);
  return { method, target, headers, body };
}

const OK = new Set([200, 201, 204, 400, 404, 405, 410, 412, 413, 415]);

test('the sandbox answers mutated writes with a success or a 4xx OperationOutcome, never a 500', async (t) => {
  const sandbox = await testSandbox(t, { open: true });
  const { port, pathname: base } = new URL(sandbox.fhirBase);
  await runFuzz({ seed: 0x3717e, iterations: 800 }, {
    generate: (rng) => write(rng, base),
    async check({ method, target, headers, body }) {
      const answer = await rawExchange(Number(port), Buffer.concat([Buffer.from(`${method} ${target} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`), body]));
      assert.ok(OK.has(answer.status), `status ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`);
      if (answer.status >= 400) assert.equal((JSON.parse(answer.body.toString('utf8')) as { resourceType: string }).resourceType, 'OperationOutcome');
    },
  });
  const read = await rawExchange(Number(port), `GET ${base}/Patient?_count=1 HTTP/1.1\r\nHost: sandbox\r\nConnection: close\r\n\r\n`);
  assert.equal(read.status, 200);
});
