// URLs under the upstream base move (any element), the input is never
// changed, and a value with nothing to rewrite comes back as the very same object (sent as it came).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BaseRewriter } from '../../src/facade/url-rewrite.js';

const UP = 'http://ehr.internal:8080/fhir/R4';
const FACADE = 'https://gw.example.org/fhir/ehr';

test('only URLs under the upstream base move; the input stays as it was; nothing to rewrite gives the same object', () => {
  const r = new BaseRewriter(`${UP}/`, FACADE);
  assert.deepEqual(r.bases, [UP, FACADE]);
  const plain = { resourceType: 'Patient', id: '1', name: [{ family: 'Doe', given: ['A'] }], managingOrganization: { reference: 'Organization/2' }, extension: [{ url: 'http://hl7.org/fhir/StructureDefinition/x', valueString: 'http://other.internal:8080/fhir/R4/Patient/1' }] };
  assert.equal(r.resourceToFacade(plain), plain, 'relative references, other origins and plain text: nothing changes');
  assert.equal(r.resourceToFacade({ ...plain, extension: [{ url: 'x', valueString: `${UP}/Patient/1` }] }).extension[0]!.valueString, `${FACADE}/Patient/1`, 'free text under the upstream base moves too (one rule for every string)');

  const bundle = {
    resourceType: 'Bundle',
    link: [{ relation: 'self', url: `${UP}/Patient?name=x` }],
    entry: [
      { fullUrl: `${UP}/Patient/1`, resource: { resourceType: 'Patient', id: '1', link: [{ other: { reference: `${UP}/Patient/9/_history/2` } }] } },
      { fullUrl: 'urn:uuid:0b1c', resource: { resourceType: 'Observation', subject: { reference: 'Patient/1' } } },
      { fullUrl: `${UP}x/Patient/3` },
    ],
  };
  const before = structuredClone(bundle);
  const out = r.resourceToFacade(bundle);
  assert.deepEqual(bundle, before, 'the input is not changed');
  assert.equal(out.link[0]!.url, `${FACADE}/Patient?name=x`);
  assert.equal(out.entry[0]!.fullUrl, `${FACADE}/Patient/1`);
  assert.equal((out.entry[0]!.resource as any).link[0].other.reference, `${FACADE}/Patient/9/_history/2`);
  assert.equal(out.entry[1], bundle.entry[1], 'an entry with nothing to rewrite is kept as it is');
  assert.equal(out.entry[2]!.fullUrl, 'http://upstream.invalid/fhir/R4x/Patient/3', 'a path that only starts like the base is not under it: only its address is redacted');

  const back = r.resourceToUpstream({ resourceType: 'Observation', subject: { reference: `${FACADE}/Patient/1` } });
  assert.equal(back.subject.reference, `${UP}/Patient/1`);
});

test("an OperationOutcome's text names the facade's base where it named the upstream's", () => {
  const r = new BaseRewriter(UP, FACADE);
  const oo = { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'not-found', diagnostics: `no ${UP}/Patient/1 here`, details: { text: `see ${UP}` } }] };
  const out = r.resourceToFacade(oo);
  assert.equal(out.issue[0]!.diagnostics, `no ${FACADE}/Patient/1 here`);
  assert.equal(out.issue[0]!.details.text, `see ${FACADE}`);
  assert.equal(oo.issue[0]!.diagnostics, `no ${UP}/Patient/1 here`);
});

test('a URL moves to what the URL parser makes of it, whether or not it is parsed (dot segments, encodings, ports, case, fragments)', () => {
  // What moving a URL means, by the parser alone: its origin and path under the base, the rest kept.
  const byParser = (url: string, from: string, to: string): string | undefined => {
    if (!/^[a-z][a-z0-9+.-]*:/i.test(url)) return url;
    if (!URL.canParse(url)) return undefined;
    const [u, base] = [new URL(url), new URL(from)];
    const path = base.pathname.replace(/\/+$/, '');
    if (u.origin !== base.origin || (u.pathname !== path && !u.pathname.startsWith(`${path}/`))) return undefined;
    return `${to}${u.pathname.slice(path.length)}${u.search}${u.hash}`;
  };
  const tails = ['', '/', '?a=1', '/Patient/1', '/Patient/1/_history/2', '/Patient?name=a&b=c|d', "/Patient?x='y'", '/Patient?x=a b', '/Patient/1#frag', '/./Patient/1', '/a/../../Patient/1', '/%2e%2E/Patient', '/.well-known/x', '/Patient%2F1', '/Pat\\ient/1', '/Patient/1\t', '/Patient/{x}', '/Patient/`x`', '/Patient/"x"', '/Patient/<x>', '/Patient/é', '/Patient/1?q=%zz', '//double//slash', 'x/Patient/1', '?', '/Patient/1?'];
  for (const [up, facade] of [[UP, FACADE], ['http://127.0.0.1:41000', 'http://127.0.0.1:5000/fhir/ehr'], ['https://ehr.internal/fhir', 'https://gw.example.org/fhir/ehr']] as const) {
    const r = new BaseRewriter(up, facade);
    const spellings = [up, up.toUpperCase(), up.replace('://', '://USER@'), up.replace(/(:\/\/[^/]+)/, '$1:443'), up.replace(/(:\/\/[^/]+)/, '$1:80')];
    for (const base of spellings) {
      for (const tail of tails) {
        const url = `${base}${tail}`;
        assert.equal(r.toFacade(url), byParser(url, up, r.facadeBase), `toFacade(${JSON.stringify(url)})`);
        assert.equal(r.toUpstream(url.replace(base, facade)), byParser(url.replace(base, facade), facade, r.upstreamBase), `toUpstream(${JSON.stringify(url.replace(base, facade))})`);
      }
    }
  }
});
