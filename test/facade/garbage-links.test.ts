// An upstream's searchset whose `entry` or `link` is not a list of objects (null, a number, a string in it,
// or an object in place of the list), or with an entry whose `resource` is not an object, is a body that is not FHIR JSON: at the source base a 502 that says so
// (never an internal error), at the federated base that source's OperationOutcome entry beside the other
// source's entries, each refusal audited as the source's failure.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { facadeHarness } from '../support/facade-harness.js';
import { startServer } from '../support/test-server.js';

const KEY = 'garbage-bundle-key-0123456789';

/** A searchset at `base` with one Patient, changed by `spoil`. */
function searchset(base: string, spoil: (b: Record<string, unknown>) => void): string {
  const bundle: Record<string, unknown> = {
    resourceType: 'Bundle', type: 'searchset', total: 1,
    link: [{ relation: 'self', url: `${base}/Patient?family=Doe` }],
    entry: [{ fullUrl: `${base}/Patient/p1`, resource: { resourceType: 'Patient', id: 'p1', name: [{ family: 'Doe' }] }, search: { mode: 'match' } }],
  };
  spoil(bundle);
  return JSON.stringify(bundle);
}

const SPOILS: Record<string, (b: Record<string, unknown>) => void> = {
  'a null link': (b) => (b.link as unknown[]).unshift(null),
  'a number and a string among the links': (b) => (b.link as unknown[]).push(7, 'next'),
  'a null entry': (b) => (b.entry as unknown[]).unshift(null),
  'a string entry': (b) => (b.entry as unknown[]).push('x'),
  'an array entry': (b) => (b.entry as unknown[]).push([]),
  'entry an object': (b) => (b.entry = { resource: { resourceType: 'Patient', id: 'p2' } }),
  'link a string': (b) => (b.link = 'self'),
  'an entry whose resource is null': (b) => (b.entry as unknown[]).push({ resource: null }),
  'an entry whose resource is a string': (b) => (b.entry as unknown[]).push({ fullUrl: 'urn:x', resource: 'Patient/p2' }),
};

test('a Bundle whose entry or link is not a list of objects is 502 at the source base and an outcome entry at the federated base', async (t) => {
  let spoil: (b: Record<string, unknown>) => void = () => {};
  const upstream = await startServer(t, (req, res) => {
    const base = `http://127.0.0.1:${req.socket.localPort}${req.url!.startsWith('/bad') ? '/bad' : '/good'}`;
    res.writeHead(200, { 'content-type': 'application/fhir+json' }).end(searchset(base, req.url!.startsWith('/bad') ? spoil : () => {}));
  });
  const authority = upstream.url.replace(/^http:\/\//, '');
  const h = await facadeHarness(t, { good: `fhir://${authority}/good/`, bad: `fhir://${authority}/bad/` }, { callers: [{ name: 'c', apiKey: KEY, sources: '*', scopes: 'system/Patient.rs' }] }, [KEY]);
  const get = async (path: string) => {
    const res = await fetch(`${h.prefix}${path}`, { headers: { 'x-api-key': KEY } });
    return { status: res.status, body: (await res.json()) as any };
  };
  const good = await get('/good/Patient?family=Doe');
  assert.equal(good.status, 200);
  assert.equal(good.body.entry[0].resource.id, 'p1');
  for (const [what, how] of Object.entries(SPOILS)) {
    spoil = how;
    const own = await get('/bad/Patient?family=Doe');
    assert.equal(own.status, 502, `${what}: ${JSON.stringify(own.body)}`);
    assert.equal(own.body.issue[0].diagnostics, 'source "bad" answered 200 with a body that is not FHIR JSON (a Bundle whose entry or link is not a list of objects, or an entry whose resource is not an object)', what);
    const all = await get('/all/Patient?family=Doe');
    assert.equal(all.status, 200, `${what}: ${JSON.stringify(all.body)}`);
    assert.deepEqual(all.body.entry.map((e: any) => e.resource.resourceType === 'Patient' ? e.resource.id : e.resource.issue[0].diagnostics), ['good.p1', 'source "bad" answered 200 with a body that is not FHIR JSON'], what);
  }
  const of = (source: string) => h.audits.filter((a) => a.agent[1].who.display === `FHIR endpoint ${source}`).map((a) => `${a.outcome} ${a.outcomeDesc ?? ''}`.trim());
  assert.deepEqual(of('bad'), Array(2 * Object.keys(SPOILS).length).fill('8 answered 502'), 'each spoiled answer audited as the source\'s failure, at its base and at the federated base');
  assert.deepEqual(of('good'), Array(1 + Object.keys(SPOILS).length).fill('0'));
});
