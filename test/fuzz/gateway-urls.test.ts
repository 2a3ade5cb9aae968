/**
 * Fuzz: how the gateway turns caller input into upstream URLs. `searchQuery` returns a query string that
 * decodes back to exactly the given names and values, or throws `ERR_INVALID_SEARCH` (never a raw
 * `URIError`); `searchTarget`, built without a URL parse, is the target of the URL `searchUrl` parses; an
 * id that `checkId` accepts always lands as one path segment under `[base]/[type]/`.
 */
import assert from 'node:assert/strict';
import { checkId, resourceUrl, sourceBase } from '../../src/gateway/core/resource-path.js';
import { searchQuery, searchTarget, searchUrl } from '../../src/gateway/core/search-params.js';
import { fuzz, settle } from './lib/fuzz.js';
import type { Random } from './lib/random.js';

const NAMES = ['family', 'given', '_count', 'date', 'code', '_id', 'name:contains', 'subject.name', '_has:Observation:patient:code'];

function value(rng: Random): unknown {
  switch (rng.int(8)) {
    case 0: return rng.int(1000);
    case 1: return rng.chance(0.5);
    case 2: return rng.pick([Number.NaN, Number.POSITIVE_INFINITY, null, undefined, {}, 10n, Symbol.for('x'), -0, 1e21, 0.1]);
    case 3: return Array.from({ length: rng.size(4) }, () => value(rng));
    default: return rng.string(rng.size(30));
  }
}

function generate(rng: Random): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (let n = rng.int(6); n > 0; n--) {
    const name = rng.chance(0.8) ? rng.pick(NAMES) : rng.string(rng.size(10));
    Object.defineProperty(params, name, { value: value(rng), enumerable: true, writable: true, configurable: true });
  }
  return params;
}

/** The pairs `searchQuery` should produce, as strings. */
function expectedPairs(params: Record<string, unknown>): [string, string][] {
  return Object.entries(params).flatMap(([name, v]) => (Array.isArray(v) ? v : [v]).map((one): [string, string] => [name, String(one)]));
}

/** True for text that survives UTF-8 (no lone surrogate). */
const wellFormed = (text: string): boolean => Buffer.from(text, 'utf8').toString('utf8') === text;

fuzz('searchQuery encodes any parameter object or throws ERR_INVALID_SEARCH, and the query decodes back', { seed: 0x5ea, iterations: 3000 }, {
  generate,
  async check(params) {
    const outcome = await settle(['ERR_INVALID_SEARCH'], () => searchQuery(params as never));
    if (!outcome.ok) return;
    const pairs = expectedPairs(params);
    if (pairs.every(([n, v]) => wellFormed(n) && wellFormed(v))) assert.deepEqual([...new URLSearchParams(outcome.value)], pairs);
  },
});

const BASES = ['https://fhir.example.org/r4', 'http://127.0.0.1:8080/fhir/R4', 'https://fhir.example.org', 'http://[::1]:9/a%20b', 'https://u:p@h.example:8443/x'];

fuzz('searchTarget is the target of the URL searchUrl parses (no URL parse per search, the same request line)', { seed: 0x7a6, iterations: 3000 }, {
  generate: (rng) => ({ baseUrl: rng.pick(BASES), params: generate(rng) }),
  async check({ baseUrl, params }) {
    const src = { baseUrl, base: sourceBase(baseUrl) } as never;
    const outcome = await settle(['ERR_INVALID_SEARCH'], () => searchTarget(src, 'Observation', params as never));
    if (!outcome.ok) return;
    const url = searchUrl(src, 'Observation', params as never);
    for (const key of ['origin', 'protocol', 'hostname', 'port', 'username', 'password', 'pathname', 'search'] as const) {
      assert.equal(outcome.value[key], url[key], `${key} of ${url.href}`);
    }
  },
});

const ID_PIECES = ['.', '..', '...', '-', 'a', '1', '%2e', '/', '?', '#', '\\', '%2F', ' ', '\u0000'];

fuzz('an id checkId accepts is one path segment under [base]/[type]/', { seed: 0x1d5, iterations: 3000 }, {
  generate: (rng) => (rng.chance(0.5) ? rng.pick(['.', '..', '...', 'a.b', '-.-']) : Array.from({ length: 1 + rng.int(4) }, () => rng.pick(ID_PIECES)).join('')),
  async check(id) {
    const outcome = await settle(['ERR_INVALID_ID'], () => checkId(id));
    if (!outcome.ok) return;
    // What a server would read from the request line: the target's path, parsed as a URL path.
    const target = resourceUrl(sourceBase('https://fhir.example.org/r4'), 'Patient', outcome.value);
    const seen = new URL(`${target.origin}${target.pathname}`);
    assert.equal(seen.pathname, `/r4/Patient/${id}`, `id ${JSON.stringify(id)} went to ${seen.href}`);
  },
});
