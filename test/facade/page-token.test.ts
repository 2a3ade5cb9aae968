// Page links are opaque, signed, expiring and bound to the caller: a tampered, expired or other caller's
// token is refused without reaching upstream.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PageTokens } from '../../src/facade/page-token.js';
import { facadeHarness } from '../support/facade-harness.js';
import { sandbox } from '../support/sandbox.js';

const A = 'caller-a-key-0123456789';
const B = 'caller-b-key-0123456789';

test('a next link is the facade\'s, holds no upstream URL even decoded, and pages for its caller only', async (t) => {
  const ehr = await sandbox(t, { open: true });
  const h = await facadeHarness(t, { ehr: ehr.connectionString() }, {
    callers: [{ name: 'a', apiKey: A, sources: '*', scopes: 'system/*.rs' }, { name: 'b', apiKey: B, sources: '*', scopes: 'system/*.rs' }],
  }, [A, B]);
  const first = (await (await fetch(`${h.prefix}/ehr/Patient?_count=2`, { headers: { 'x-api-key': A } })).json()) as any;
  const next: string = first.link.find((l: any) => l.relation === 'next').url;
  const token = new URL(next).searchParams.get('_page_token')!;
  for (const part of token.split('.')) assert.ok(!Buffer.from(part, 'base64url').toString('latin1').includes(ehr.fhirBase), 'the token is encrypted');
  const second = await fetch(next, { headers: { 'x-api-key': A } });
  assert.equal(second.status, 200);
  const page2 = (await second.json()) as any;
  assert.notDeepEqual(page2.entry.map((e: any) => e.resource.id), first.entry.map((e: any) => e.resource.id));

  const before = ehr.stats.requests.total;
  const other = await fetch(next, { headers: { 'x-api-key': B } });
  assert.equal(other.status, 400, 'another caller\'s token');
  assert.match(((await other.json()) as any).issue[0].diagnostics, /another caller/);
  const [body, mac] = token.split('.');
  const flipped = `${body!.slice(0, 10)}${body![10] === 'A' ? 'B' : 'A'}${body!.slice(11)}.${mac}`;
  assert.equal((await fetch(`${h.prefix}/ehr?_page_token=${flipped}`, { headers: { 'x-api-key': A } })).status, 400, 'tampered');
  assert.equal((await fetch(`${h.prefix}/ehr?_page_token=garbage`, { headers: { 'x-api-key': A } })).status, 400, 'malformed');
  assert.equal(ehr.stats.requests.total, before, 'none of them reached upstream');
  assert.ok(h.audits.filter((a) => a.outcome === '4').length >= 3, 'each refusal audited');
});

test('a token expires', () => {
  let now = 1_000_000;
  const tokens = new PageTokens('a-secret-of-at-least-thirty-two-chars!', 60, () => now);
  const token = tokens.sign({ caller: 'key:a', type: 'Patient', pages: [{ source: 'ehr', link: 'http://up/fhir?page=2', skip: 0 }] });
  assert.equal(tokens.open(token, 'key:a').pages[0]!.link, 'http://up/fhir?page=2');
  now += 61_000;
  assert.throws(() => tokens.open(token, 'key:a'), { code: 'ERR_PAGE_TOKEN', message: /expired/ });
  const otherKey = new PageTokens('another-secret-of-thirty-two-chars-xx', 60, () => now);
  assert.throws(() => otherKey.open(tokens.sign({ caller: 'key:a', type: undefined, pages: [] }), 'key:a'), { code: 'ERR_PAGE_TOKEN', message: /signature/ });
});
