/**
 * Fuzz: the sandbox's search parser over HTTP. Random and mutated query strings (parameters, modifiers,
 * prefixes, escapes, commas, bad `%`) against a running open sandbox are answered 200 with a searchset
 * Bundle or 400 with an OperationOutcome; never 500, and the sandbox keeps answering.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runFuzz } from './lib/fuzz.js';
import type { Random } from './lib/random.js';
import { rawExchange, wireSafe } from './lib/raw-http.js';
import { sandbox as testSandbox } from '../support/sandbox.js';

const TYPES = ['Patient', 'Patient', 'Observation', 'Condition', 'MedicationRequest', 'Encounter'];
const COMMON = ['_id', '_lastUpdated', 'identifier', '_count', '_sort', '_offset'];
const PATIENT = [...COMMON, 'family', 'given', 'name', 'birthdate', 'gender', 'address-city', 'address-postalcode', 'active'];
const CLINICAL = [...COMMON, 'patient', 'subject', 'code', 'category', 'status', 'clinical-status', 'date'];
const STRANGE = ['_include', 'unknown', '', 'family', 'patient', '__proto__', 'constructor', 'hasOwnProperty'];
const MODIFIERS = ['', '', '', '', '', '', ':exact', ':contains', ':missing', ':not', ':text', ':', '::', ':exact:contains'];
const VALUES = [
  'Doe', 'do', 'Jöhn', 'female', 'male,other', 'true', 'false', '1974-12-25', 'ge1970', 'lt2000-01', 'ap2020-02-29', 'eq2021-02-29',
  'sa2020-01-01T10:00:00Z', 'eb2020-01-01T10:00+01:00', 'ne1999-13', 'gt0000', 'le9999-12-31T23:59:59.999999999Z', '2020-01-01T25:00',
  'http://loinc.org|8867-4', '|x', 'sys|', 'a|b|c', 'a\\|b', 'a\\,b', '\\', 'Patient/1', 'https://h/fhir/Patient/1/_history/2', '1', '0',
  '1000', '1001', '-1', '99999999999999999999', '-birthdate,family', 'family,-date', '-', '_id', ',,,', '',
];

function query(rng: Random, type: string): string {
  const pairs = Array.from({ length: rng.int(5) }, () => {
    const name = rng.chance(0.92) ? rng.pick(type === 'Patient' ? PATIENT : CLINICAL) : rng.chance(0.5) ? rng.pick(STRANGE) : rng.string(rng.size(10));
    const value = rng.chance(0.8) ? rng.pick(VALUES) : rng.string(rng.size(20));
    const encoded = rng.chance(0.7) ? encodeURIComponent(Buffer.from(value).toString()) : value;
    return `${name}${rng.pick(MODIFIERS)}=${encoded}`;
  });
  const text = pairs.join('&');
  return rng.chance(0.2) ? rng.mutate(text) : text;
}

interface SearchRequest {
  method: 'GET' | 'POST';
  target: string;
  body: string;
}

function searchRequest(rng: Random, base: string): SearchRequest {
  const type = rng.chance(0.97) ? rng.pick(TYPES) : rng.pick(['patient', 'Nope', '%50atient', '..']);
  if (rng.chance(0.15)) return { method: 'POST', target: `${base}/${type}/_search?${query(rng, type)}`, body: query(rng, type) };
  const target = `${base}/${type}?${query(rng, type)}`;
  return { method: 'GET', target: rng.chance(0.9) ? wireSafe(target) : target.replace(/[\r\n]/g, ''), body: '' };
}

test('the sandbox answers random searches with a Bundle or an OperationOutcome, never a 500', async (t) => {
  const sandbox = await testSandbox(t, { open: true });
  const { port, pathname: base } = new URL(sandbox.fhirBase);
  await runFuzz({ seed: 0x5ea4c4, iterations: 1200 }, {
    generate: (rng) => searchRequest(rng, base),
    async check({ method, target, body }) {
      const bytes = Buffer.from(body);
      const headers = ['Host: sandbox', 'Connection: close', ...(method === 'POST' ? ['Content-Type: application/x-www-form-urlencoded', `Content-Length: ${bytes.length}`] : [])];
      const answer = await rawExchange(Number(port), Buffer.concat([Buffer.from(`${method} ${target} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`), bytes]));
      if (answer.status === 400 && answer.body.length === 0 && target !== wireSafe(target)) return; // Node's own parser refused the request line
      assert.ok([200, 400, 404].includes(answer.status), `status ${answer.status}: ${answer.body.toString('utf8').slice(0, 300)}`);
      const resource = JSON.parse(answer.body.toString('utf8')) as { resourceType: string; type?: string; issue?: unknown[] };
      if (answer.status === 200) {
        assert.equal(resource.resourceType, 'Bundle');
        assert.equal(resource.type, 'searchset');
      } else {
        assert.equal(resource.resourceType, 'OperationOutcome');
        assert.ok(Array.isArray(resource.issue) && resource.issue.length > 0);
      }
    },
  });
  const metadata = await rawExchange(Number(port), `GET ${base}/metadata HTTP/1.1\r\nHost: sandbox\r\nConnection: close\r\n\r\n`);
  assert.equal(metadata.status, 200);
});
