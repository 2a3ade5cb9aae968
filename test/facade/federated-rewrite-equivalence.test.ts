// Issue 38 item 1 made the federated search's per-entry work cheaper: a plain answer's strings looked at
// closely only where they hold the host (`answerToFacade`), resources federated in place, compartment paths
// walked without copies, a source query without a separator passed as it is, scopes read once per type.
// Each is checked here against the way it was done before (kept below as the reference), on generated
// answers: nested extensions, contained resources, references with and without the upstream base, the
// address in other spellings and in `%`, `&#` and `\u` encodings, paging links, odd shapes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inCompartment, patientOf, writableInCompartment } from '../../src/facade/compartment.js';
import { federatedReference, federatedResource, sourceQuery } from '../../src/facade/federated-id.js';
import type { FederatedView } from '../../src/facade/federated-id.js';
import { parseScopes, scopeAccess } from '../../src/facade/scopes.js';
import { isResourceType } from '../../src/fhir/index.js';
import { BaseRewriter, walk } from '../../src/facade/url-rewrite.js';
import { visibility } from '../../src/facade/visible-entries.js';
import { Random } from '../fuzz/lib/random.js';

/** A deterministic generator (the fuzz tests' mulberry32). */
function random(seed: number): () => number {
  const rng = new Random(seed);
  return () => rng.next();
}
const pick = <T>(rnd: () => number, items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;

const UPSTREAMS = ['http://ehr.internal:8080/fhir/R4', 'http://127.0.0.1:41000/lab/R4', 'https://Ehr.Example.org/fhir', 'http://fhir'] as const;
const FACADE = 'https://gw.example.org/fhir/ehr';
const SOURCES = ['ehr', 'lab', 'a', 'a.b'];

/** Strings an answer may hold, for the upstream base `up` (with encodings in them when `encoded`). */
function texts(up: string, encoded = true): string[] {
  const u = new URL(up);
  const host = u.host;
  return [
    'Benchmark', 'Patient/123', 'Patient/ehr.1', 'Practitioner/9/_history/2', '#org', 'urn:uuid:0b0b', 'Patient/b.2', 'Observation/x'.padEnd(80, 'y'),
    `${up}/Patient/1`, `${up}/Patient?name=a&_count=2`, `${up}/Organization/org-1/_history/3`, `${up}x/Patient/3`, `${up}/./Patient/1`, `${up}/Patient/1?`,
    `${up.toUpperCase()}/Patient/1`, `see ${up}/Patient/1 here`, `host ${host} said`, `host ${host.toUpperCase()} said`, `at ${host}9`,
    `<div xmlns="http://www.w3.org/1999/xhtml">${host}</div>`, 'https://other.example.org/fhir/Patient/5', 'http://hl7.org/fhir/StructureDefinition/x',
    ...(encoded ? [encodeURIComponent(`${up}/Patient/1`), `q=${encodeURIComponent(host)}`, '100%', 'a&#x31;b', `&#${host.charCodeAt(0)};${host.slice(1)}`, [...host].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(''), '\\u0031', 'back\\Uslash'] : []),
  ];
}

/** A generated resource of `depth` levels, its strings from `pool`. */
function resource(rnd: () => number, pool: readonly string[], depth: number): Record<string, unknown> {
  const type = pick(rnd, ['Patient', 'Observation', 'Encounter', 'Organization', 'Condition', 'Appointment']);
  const ref = () => ({ reference: pick(rnd, pool), ...(rnd() < 0.3 ? { display: pick(rnd, pool) } : {}) });
  const r: Record<string, unknown> = { resourceType: type };
  if (rnd() < 0.85) r.id = pick(rnd, ['1', 'bench-1', 'b.1', 'x'.repeat(64), '123']);
  if (rnd() < 0.7) r.meta = rnd() < 0.9 ? { versionId: '2', lastUpdated: '2026-01-01T00:00:00Z', ...(rnd() < 0.3 ? { source: pick(rnd, pool) } : {}) } : ['odd'];
  if (rnd() < 0.6) r.subject = ref();
  if (rnd() < 0.4) r.patient = ref();
  if (rnd() < 0.4) r.performer = [ref(), ref(), pick(rnd, pool)];
  if (rnd() < 0.3) r.participant = [{ actor: ref() }, { actor: [ref()] }];
  if (rnd() < 0.3) r.link = [{ other: ref(), type: 'seealso' }];
  if (rnd() < 0.5) r.extension = [{ url: pick(rnd, pool), extension: [{ url: 'nested', valueReference: ref() }, { url: pick(rnd, pool), valueString: pick(rnd, pool) }] }];
  if (rnd() < 0.4) r.text = { status: 'generated', div: pick(rnd, pool) };
  if (rnd() < 0.2) r[pick(rnd, pool)] = pick(rnd, pool); // a member name that may hold the address
  if (rnd() < 0.2) r.reference = pick(rnd, pool);
  if (rnd() < 0.2) r.values = [pick(rnd, pool), [pick(rnd, pool)], 3, true, null];
  if (depth > 0 && rnd() < 0.4) r.contained = [resource(rnd, pool, depth - 1)];
  return r;
}

/** A generated searchset Bundle answer from `up`. */
function bundle(rnd: () => number, up: string): Record<string, unknown> {
  const pool = texts(up, rnd() < 0.5);
  const entries: unknown[] = Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => {
    const e: Record<string, unknown> = {};
    if (rnd() < 0.9) e.fullUrl = pick(rnd, pool);
    if (rnd() < 0.95) e.resource = rnd() < 0.95 ? resource(rnd, pool, 2) : pick(rnd, ['text', 7, ['a', { reference: 'Patient/1' }]]);
    if (rnd() < 0.3) e.link = [{ relation: 'self', url: pick(rnd, pool) }];
    e.search = { mode: pick(rnd, ['match', 'include', 'outcome']) };
    return e;
  });
  if (rnd() < 0.1) entries.push('loose', 5);
  return {
    resourceType: 'Bundle', type: 'searchset', total: entries.length,
    link: [{ relation: 'self', url: pick(rnd, pool) }, ...(rnd() < 0.5 ? [{ relation: 'next', url: `${up}/Patient?page=2&x=${pick(rnd, ['1', '%41', 'b'])}` }] : [])],
    entry: entries,
  };
}

/** `value` as JSON text, some characters of its strings (member names too) written as `\u` escapes. */
function serialize(value: unknown, rnd: () => number, escapes: number): string {
  if (typeof value === 'string') return `"${[...value].map((c) => (rnd() < escapes ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : JSON.stringify(c).slice(1, -1))).join('')}"`;
  if (Array.isArray(value)) return `[${value.map((v) => serialize(v, rnd, escapes)).join(',')}]`;
  if (typeof value === 'object' && value !== null) return `{${Object.entries(value).map(([k, v]) => `${serialize(k, rnd, escapes)}:${serialize(v, rnd, escapes)}`).join(',')}}`;
  return JSON.stringify(value);
}

test('answerToFacade rewrites every generated answer as resourceToFacade does, and gives the value itself when nothing changes', () => {
  const rnd = random(38);
  let plain = 0;
  let changed = 0;
  for (let i = 0; i < 3000; i++) {
    const up = pick(rnd, UPSTREAMS);
    const r = new BaseRewriter(up, FACADE);
    const text = serialize(rnd() < 0.5 ? bundle(rnd, up) : resource(rnd, texts(up, rnd() < 0.5), 2), rnd, rnd() < 0.6 ? 0 : 0.05);
    const before = JSON.parse(text);
    const expected = r.mayHoldAddress(text) ? r.resourceToFacade(before) : before;
    const value = JSON.parse(text);
    const got = r.answerToFacade(value, text);
    assert.equal(JSON.stringify(got), JSON.stringify(expected), `answer ${i} from ${up}: ${text}`);
    assert.equal(got === value, expected === before, `answer ${i}: the value itself exactly when nothing changes`);
    if (!/%|&#|\\u/i.test(text)) plain++;
    if (expected !== before) changed++;
  }
  assert.ok(plain > 500 && changed > 500, `both kinds of answer are generated (${plain} plain, ${changed} rewritten)`);
});

/** The federated view of a resource as it was made before: a copy, references qualified by `walk`. */
function federatedResourceBefore(resource: Record<string, unknown>, view: FederatedView, federatedId: (id: string) => string | undefined): Record<string, unknown> {
  const qualified = walk(resource, (text, key) => (key === 'reference' ? federatedReference(text, view) : text), false) as Record<string, unknown>;
  const body = qualified === resource ? { ...resource } : qualified;
  const id = typeof resource.id === 'string' ? federatedId(resource.id) : undefined;
  if (id !== undefined) body.id = id;
  const meta = (typeof body.meta === 'object' && body.meta !== null ? body.meta : {}) as Record<string, unknown>;
  body.meta = { ...meta, source: view.sourceBase };
  return body;
}

test('federatedResource (in place) shows every generated resource as the copying way did, and changes it in place', () => {
  const rnd = random(3801);
  for (let i = 0; i < 3000; i++) {
    const up = pick(rnd, UPSTREAMS);
    const source = pick(rnd, SOURCES);
    const view: FederatedView = { source, sourceBase: `${FACADE.replace(/\/ehr$/, '')}/${source}`, sources: SOURCES };
    const input: unknown = rnd() < 0.97 ? resource(rnd, texts(up), 3) : pick(rnd, ['text', 7, ['a', { reference: 'Patient/1' }], true]);
    const text = JSON.stringify(input);
    // The id the federated base gives a resource's own id: what it gives a relative reference's, read back.
    const idOf = (id: string) => /^[A-Za-z]+\/(.*)$/.exec(federatedReference(`Patient/${id}`, view))?.[1];
    const expected = JSON.stringify(federatedResourceBefore(JSON.parse(text), view, idOf));
    const own = JSON.parse(text);
    const shown = federatedResource(own, view);
    assert.equal(JSON.stringify(shown), expected, `resource ${i} of ${source}: ${text}`);
    if (typeof own === 'object' && own !== null && !Array.isArray(own)) assert.equal(shown, own, 'an object is changed in place');
  }
  assert.throws(() => federatedResource(null as never, { source: 'ehr', sourceBase: FACADE, sources: SOURCES }), TypeError, 'a null resource fails as before');
});

// The compartment as it was read before: every path split per call, elements gathered by flatMap.
const MEMBERS_BEFORE: Record<string, readonly string[]> = { Observation: ['subject', 'performer'], Encounter: ['subject'], Condition: ['subject', 'asserter'], Appointment: ['participant.actor'] };
function elementsBefore(value: unknown, path: readonly string[]): Record<string, unknown>[] {
  if (Array.isArray(value)) return value.flatMap((v) => elementsBefore(v, path));
  if (typeof value !== 'object' || value === null) return [];
  const obj = value as Record<string, unknown>;
  if (path.length === 0) return [obj];
  return elementsBefore(obj[path[0]!], path.slice(1));
}
function localBefore(reference: string, bases: readonly string[]): string {
  let ref = reference;
  for (const base of bases) {
    if (ref.startsWith(`${base}/`)) {
      ref = ref.slice(base.length + 1);
      break;
    }
  }
  const m = /^([A-Za-z]+\/[A-Za-z0-9\-.]{1,64})(\/_history\/.*)?$/.exec(ref);
  return m === null ? reference : m[1]!;
}
const refsBefore = (r: Record<string, unknown>, path: string) => elementsBefore(r, path.split('.')).flatMap((o) => (typeof o.reference === 'string' ? [o.reference] : []));
function inCompartmentBefore(resource: unknown, patientId: string, bases: readonly string[]): boolean {
  if (typeof resource !== 'object' || resource === null) return false;
  const r = resource as Record<string, unknown>;
  if (r.resourceType === 'Patient') return r.id === patientId;
  const paths = typeof r.resourceType === 'string' && Object.hasOwn(MEMBERS_BEFORE, r.resourceType) ? MEMBERS_BEFORE[r.resourceType]! : [];
  return paths.some((path) => refsBefore(r, path).some((ref) => localBefore(ref, bases) === `Patient/${patientId}`));
}
function patientOfBefore(resource: unknown, bases: readonly string[]): string | undefined {
  if (typeof resource !== 'object' || resource === null) return undefined;
  const r = resource as Record<string, unknown>;
  if (r.resourceType === 'Patient') return typeof r.id === 'string' ? `Patient/${r.id}` : undefined;
  const paths = typeof r.resourceType === 'string' && Object.hasOwn(MEMBERS_BEFORE, r.resourceType) ? MEMBERS_BEFORE[r.resourceType]! : [];
  for (const path of paths) {
    const found = refsBefore(r, path).map((ref) => localBefore(ref, bases)).find((ref) => ref.startsWith('Patient/'));
    if (found !== undefined) return found;
  }
  return undefined;
}

test('the compartment (inCompartment, patientOf, writableInCompartment) reads every generated resource as before', () => {
  const rnd = random(3802);
  let inside = 0;
  for (let i = 0; i < 3000; i++) {
    const up = pick(rnd, UPSTREAMS);
    const bases = [up, FACADE];
    const r = resource(rnd, [...texts(up), 'Patient/1', `${up}/Patient/1`, `${FACADE}/Patient/1/_history/4`, `${up}Patient/1`, 'Patient/123/_history/x'], 2);
    for (const id of ['1', '123', 'bench-1']) {
      const expected = inCompartmentBefore(r, id, bases);
      assert.equal(inCompartment(r, id, bases), expected, `resource ${i}, patient ${id}: ${JSON.stringify(r)}`);
      if (expected) inside++;
      if (!expected) assert.equal(writableInCompartment(r, id, bases), false);
    }
    assert.equal(patientOf(r, bases), patientOfBefore(r, bases), `resource ${i}: ${JSON.stringify(r)}`);
  }
  assert.ok(inside > 300, `resources inside the compartment are generated (${inside})`);
  assert.equal(inCompartment({ resourceType: '__proto__', subject: { reference: 'Patient/1' } }, '1', []), false, 'a type is never a prototype member');
});

/** The source query as it was made before: every value split and looked at. */
function sourceQueryBefore(query: URLSearchParams, source: string): string | undefined {
  const out = new URLSearchParams();
  for (const [name, value] of query) {
    const [param = '', modifier] = name.split(':');
    const bare = (param === '_id' && modifier === undefined) || (modifier !== undefined && isResourceType(modifier));
    if (modifier !== undefined && !bare) {
      out.append(name, value);
      continue;
    }
    const kept = value.split(/(?<!\\),/).flatMap((part) => {
      const slash = part.indexOf('/');
      if ((slash < 0 && !bare) || (slash >= 0 && !isResourceType(part.slice(0, slash)))) return [part];
      const id = slash < 0 ? part : part.slice(slash + 1);
      const named = SOURCES.filter((s) => id.startsWith(`${s}.`) && /^[A-Za-z0-9\-.]{1,64}$/.test(id.slice(s.length + 1))).sort((a, b) => b.length - a.length)[0];
      if (named === undefined) return [part];
      return named === source ? [`${slash < 0 ? '' : part.slice(0, slash + 1)}${id.slice(named.length + 1)}`] : [];
    });
    if (kept.length === 0) return undefined;
    out.append(name, kept.join(','));
  }
  return out.toString();
}

test('sourceQuery gives each source the query it gave before, values without a separator as they are', () => {
  const rnd = random(3803);
  const values = ['Benchmark', 'Patient/ehr.1', 'Patient/lab.2', 'ehr.1', 'a.b.1', 'Patient/1', 'x\\,y', 'a,b', 'Patient/ehr.1,Patient/lab.2', 'ehr.', '1.5', 'ge2026-01-01', ''];
  const names = ['family', '_id', 'subject', 'subject:Patient', 'name:exact', 'code:not', '_lastUpdated'];
  for (let i = 0; i < 2000; i++) {
    const query = new URLSearchParams();
    for (let k = Math.floor(rnd() * 4); k >= 0; k--) query.append(pick(rnd, names), pick(rnd, values));
    for (const source of SOURCES) assert.equal(sourceQuery(query, source, SOURCES)?.toString(), sourceQueryBefore(query, source), `${query} for ${source}`);
  }
});

test("what a caller may see of a page is what its scopes said per resource before, read once per type", () => {
  const rnd = random(3804);
  for (const scope of ['system/Patient.rs', 'patient/Observation.rs user/Patient.r', 'system/*.rs', 'user/Encounter.s patient/*.r']) {
    const caller = { scopes: parseScopes(scope) } as never;
    for (const compartment of [undefined, '1']) {
      const visible = visibility(caller, compartment, ['http://ehr.internal:8080/fhir/R4']);
      if (visible === undefined) {
        assert.ok(compartment === undefined && scope === 'system/*.rs');
        continue;
      }
      for (let i = 0; i < 300; i++) {
        const r = rnd() < 0.1 ? { resourceType: pick(rnd, ['OperationOutcome', 7, '__proto__', 'constructor']) } : resource(rnd, ['Patient/1', 'Patient/2'], 1);
        const type = r.resourceType;
        const access = typeof type === 'string' ? scopeAccess(parseScopes(scope), type, 'r') ?? scopeAccess(parseScopes(scope), type, 's') : undefined;
        const expected = type === 'OperationOutcome' ? true : typeof type !== 'string' || access === undefined ? false : compartment === undefined ? access === 'open' : inCompartmentBefore(r, compartment, ['http://ehr.internal:8080/fhir/R4']);
        assert.equal(visible(r as Record<string, unknown>), expected, `${scope} ${compartment}: ${JSON.stringify(r)}`);
      }
    }
  }
});
