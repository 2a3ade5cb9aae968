// A malicious upstream cannot make the facade hand out the gateway's upstream bearer token or its own
// address: it echoes the token (raw, percent-encoded, base64, JSON-escaped, as character references) and
// names itself (`scheme://host:port/path`, `host:port`, percent-encoded) in every element the attacker
// pass found, and every answer of the facade (source base and federated base; pass-through, operation,
// error and capabilities routes) is scanned byte-wise, with every encoding undone, for both.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import type { Answer } from '../support/facade-harness.js';
import { facadeHarness } from '../support/facade-harness.js';

const KEY = 'leak-hunter-key-0123456789';
const CLIENT_SECRET = 'gateway-client-secret-0123';

/** Every form in which `address` (`host:port`) may name the upstream, as the answers of the evil upstream write them. */
function addressForms(base: string, authority: string): Record<string, string> {
  return {
    base,
    baseEncoded: encodeURIComponent(base),
    baseEncodedLower: encodeURIComponent(base).toLowerCase(),
    authority,
    authorityEncoded: encodeURIComponent(authority),
    other: `http://${authority}/admin/status`,
    everyByteEncoded: [...authority].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join(''),
  };
}

/** The forms of the token's echo, one per answer of the evil upstream. */
function tokenForms(token: string): Record<string, string> {
  return {
    raw: `Authorization: Bearer ${token}`,
    percent: encodeURIComponent(`Bearer ${token}`),
    everyByte: [...token].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).join(''),
    base64: Buffer.from(`Authorization: Bearer ${token}`).toString('base64'),
    base64url: Buffer.from(`xBearer ${token}`).toString('base64url'),
    hex: Buffer.from(token).toString('hex'),
    references: [...token].map((c) => `&#${c.charCodeAt(0)};`).join(''),
  };
}

interface Evil {
  readonly base: string;
  readonly authority: string;
  readonly connectionString: string;
  /** The access tokens the evil token endpoint issued. */
  readonly tokens: string[];
}

/** The malicious upstream: its own token endpoint, and FHIR answers that echo the bearer token and its address. */
async function evilUpstream(t: TestContext): Promise<Evil> {
  const tokens: string[] = [];
  let base = '';
  let authority = '';
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      res.writeHead(status, { 'content-type': 'application/fhir+json', ...headers });
      res.end(text);
    };
    if (req.method === 'POST' && url.pathname === '/token') {
      req.resume();
      const token = `evil.${randomBytes(24).toString('base64url')}`;
      tokens.push(token);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600 }));
      return;
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? 'no-token-sent';
    const a = addressForms(base, authority);
    const mixed = `${a.base}/Patient/1 ${a.authority} ${a.baseEncoded} ${a.baseEncodedLower} ${a.authorityEncoded} ${a.other} ${a.everyByteEncoded}`;
    const path = decodeURIComponent(url.pathname).replace(/^\/fhir\/?/, '');
    const echo = /^Patient\/echo-(\w+)$/.exec(path)?.[1] ?? (url.searchParams.get('name') === 'echo' ? 'percent' : undefined);
    if (echo !== undefined) {
      const forms = tokenForms(bearer);
      if (echo === 'json') {
        const escaped = [...bearer].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
        send(400, `{"resourceType":"OperationOutcome","issue":[{"severity":"error","code":"invalid","diagnostics":"you sent ${escaped}"}]}`);
        return;
      }
      if (echo === 'header') {
        send(200, { resourceType: 'Patient', id: 'echo-header' }, { etag: `W/"${bearer}"` });
        return;
      }
      const form = forms[echo] ?? forms.raw!;
      const narrative = echo === 'references' ? `<div xmlns="http://www.w3.org/1999/xhtml">${form}</div>` : `<div xmlns="http://www.w3.org/1999/xhtml">ok</div>`;
      send(echo === 'raw' ? 401 : 200, echo === 'base64' ? { resourceType: 'DocumentReference', id: 'echo', content: [{ attachment: { contentType: 'text/plain', data: form } }] } : { resourceType: 'OperationOutcome', text: { status: 'generated', div: narrative }, issue: [{ severity: 'error', code: 'invalid', diagnostics: `you sent ${form}` }] });
      return;
    }
    const outcome = { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'invalid', diagnostics: `failed at ${mixed}`, details: { text: mixed }, location: [`${a.base}/Patient/1`, a.authority], expression: [`Patient.where(url='${a.other}')`, a.authorityEncoded] }] };
    const patient = (id: string) => ({
      resourceType: 'Patient',
      id,
      meta: { versionId: '1', source: `${a.base}/Patient/${id}`, profile: [`${a.base}/StructureDefinition/p`, `http://${a.authority}/sd`] },
      text: { status: 'generated', div: `<div xmlns="http://www.w3.org/1999/xhtml">served by <a href="${a.other}">${a.authority}</a> ${a.baseEncoded} &#${authority.charCodeAt(0)};${authority.slice(1)}</div>` },
      identifier: [{ system: `${a.base}/ids`, value: a.authority }, { system: `urn:x:${a.authorityEncoded}`, value: '1' }],
      extension: [{ url: `${a.base}/ext`, valueUri: a.other }, { url: 'http://example.org/e', valueString: mixed }],
      maritalStatus: { coding: [{ system: `${a.base}/CodeSystem/m`, code: 'M', display: a.authority }] },
      managingOrganization: { reference: `${a.base}/Organization/1`, display: a.everyByteEncoded },
    });
    const statement = {
      resourceType: 'CapabilityStatement', status: 'active', kind: 'instance', fhirVersion: '4.0.1', format: ['json'],
      url: `${a.base}/metadata`, instantiates: [`${a.base}/cs`, `http://${a.authority}/other-cs`], implementationGuide: [a.other],
      software: { name: `evil on ${a.authority}`, version: a.baseEncoded }, implementation: { description: mixed, url: a.base },
      rest: [{ mode: 'server', documentation: mixed, resource: [{ type: 'Patient', profile: `${a.base}/StructureDefinition/Patient`, documentation: mixed, interaction: [{ code: 'read' }, { code: 'search-type' }], searchParam: [{ name: 'name', type: 'string', definition: `${a.base}/SearchParameter/name`, documentation: mixed }, { name: a.authority, type: 'token', definition: a.other }] }], operation: [{ name: 'everything', definition: `${a.base}/OperationDefinition/everything` }] }],
    };
    const headers = { etag: `W/"${a.authority}"`, 'x-progress': `at ${a.base}`, 'content-location': `${a.base}/Patient/addr`, location: `${a.other}` };
    if (path === 'metadata') return send(200, statement, headers);
    if (path === 'Patient/addr' || path === 'Patient/addr/_history/1') return send(200, patient('addr'), headers);
    if (path === 'Patient/fail') return send(500, outcome, headers);
    if (path === 'Patient/addr/$everything' || path === 'Patient') {
      return send(200, { resourceType: 'Bundle', type: 'searchset', total: 2, link: [{ relation: 'self', url: `${a.base}/Patient` }, { relation: 'next', url: `${a.base}/Patient?page=2` }, { relation: 'related', url: a.other }], entry: [{ fullUrl: `${a.base}/Patient/addr`, resource: patient('addr'), search: { mode: 'match' } }, { fullUrl: `urn:${a.authority}`, resource: outcome, search: { mode: 'outcome' } }] }, headers);
    }
    send(404, outcome, headers);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  authority = `127.0.0.1:${port}`;
  base = `http://${authority}/fhir`;
  t.after(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  return { base, authority, tokens, connectionString: `fhir://${authority}/fhir?client_id=gw&client_secret=${CLIENT_SECRET}&token_url=${encodeURIComponent(`http://${authority}/token`)}` };
}

/** `text` with every encoding undone that the test knows, independently of the facade's own code. */
function undone(text: string): string[] {
  const out = [text];
  let t = text;
  try {
    // A JSON body: its strings as they decode.
    const strings: string[] = [];
    const visit = (v: unknown): void => {
      if (typeof v === 'string') strings.push(v);
      else if (Array.isArray(v)) v.forEach(visit);
      else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) (strings.push(k), visit(x));
    };
    visit(JSON.parse(text));
    out.push((t = strings.join('\n')));
  } catch {
    // not JSON: the bytes as they are
  }
  for (let i = 0; i < 3; i++) out.push((t = t.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))));
  out.push((t = t.replace(/&#(\d+);/g, (_, d: string) => String.fromCharCode(Number(d))).replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)))));
  // Every run that could be base64 or base64url, decoded at each of its starting offsets, and hex runs.
  for (const run of text.match(/[A-Za-z0-9+/_-]{12,}/g) ?? []) {
    for (let skip = 0; skip < 4; skip++) out.push(Buffer.from(run.slice(skip), run.includes('-') || run.includes('_') ? 'base64url' : 'base64').toString('latin1'));
  }
  for (const run of text.match(/(?:[0-9a-f]{2}){8,}/gi) ?? []) out.push(Buffer.from(run, 'hex').toString('latin1'));
  return out;
}

/** Fails when any answer holds `needle` in any form `undone` knows (case-insensitive for addresses). */
function assertNowhere(answers: readonly Answer[], needle: string, what: string, caseless = false): void {
  const n = caseless ? needle.toLowerCase() : needle;
  for (const a of answers) {
    for (const form of undone(`${JSON.stringify(a.headers)}\n${a.body}`)) {
      assert.ok(!(caseless ? form.toLowerCase() : form).includes(n), `${a.line} (${a.status}) leaks ${what}`);
    }
    for (const form of undone(a.body)) assert.ok(!(caseless ? form.toLowerCase() : form).includes(n), `${a.line} (${a.status}) leaks ${what} in its body`);
  }
}

test("a malicious upstream's echo of the gateway's bearer token is withheld, whatever its encoding, at the source base and the federated base", async (t) => {
  const evil = await evilUpstream(t);
  const h = await facadeHarness(t, { evil: evil.connectionString }, { callers: [{ name: 'hunter', apiKey: KEY, sources: '*', scopes: 'system/*.rs' }] }, [KEY, CLIENT_SECRET]);
  const get = async (path: string) => {
    const r = await fetch(`${h.prefix}/${path}`, { headers: { 'x-api-key': KEY } });
    return { status: r.status, body: (await r.json()) as any };
  };
  for (const form of ['raw', 'percent', 'everyByte', 'base64', 'base64url', 'hex', 'json', 'references', 'header']) {
    const answer = await get(`evil/Patient/echo-${form}`);
    assert.equal(answer.status, 502, `${form}: withheld`);
    assert.match(answer.body.issue[0].diagnostics, /ERR_CREDENTIALS_ECHOED/);
    const audited = h.audits.at(-1)!;
    assert.equal(audited.outcome, '8', 'an upstream failure');
    const federated = await get(`all/Patient/evil.echo-${form}`);
    assert.equal(federated.status, 502, `${form}: withheld at the federated base`);
  }
  const search = await get('all/Patient?name=echo');
  assert.equal(search.status, 502, 'the only source asked failed: an upstream failure');
  assert.match(JSON.stringify(search.body.issue), /ERR_CREDENTIALS_ECHOED/);
  assert.ok(evil.tokens.length >= 1, 'the evil upstream issued the token it echoed');
  for (const token of evil.tokens) assertNowhere(h.answers, token, 'the bearer token');
});

test("a malicious upstream's address is rewritten or redacted in every element, header and route, at the source base and the federated base", async (t) => {
  const evil = await evilUpstream(t);
  const h = await facadeHarness(t, { evil: evil.connectionString }, { callers: [{ name: 'hunter', apiKey: KEY, sources: '*', scopes: 'system/*.rs', operations: ['$everything'] }] }, [KEY, CLIENT_SECRET]);
  const get = async (path: string) => {
    const r = await fetch(`${h.prefix}/${path}`, { headers: { 'x-api-key': KEY } });
    return { status: r.status, body: (await r.json()) as any, headers: r.headers };
  };
  const read = await get('evil/Patient/addr');
  assert.equal(read.status, 200);
  assert.equal(read.body.meta.source, `${h.prefix}/evil/Patient/addr`, 'a URL under the upstream base moves to the facade');
  assert.equal(read.body.identifier[0].system, `${h.prefix}/evil/ids`);
  assert.equal(read.body.identifier[0].value, 'upstream.invalid', 'a bare host:port is redacted');
  assert.equal(read.body.extension[0].valueUri, 'http://upstream.invalid/admin/status', 'an address outside the base is redacted, the URI kept valid');
  assert.match(read.body.text.div, /^<div xmlns="http:\/\/www.w3.org\/1999\/xhtml">/, 'a narrative stays XHTML');
  assert.equal(read.headers.get('etag'), 'W/"upstream.invalid"');
  assert.equal(read.headers.get('x-progress'), `at ${h.prefix}/evil`);
  assert.equal(read.headers.get('content-location'), `${h.prefix}/evil/Patient/addr`);
  assert.equal(read.headers.get('location'), null, 'a Location outside the base is dropped');
  assert.equal((await get('evil/Patient/addr/_history/1')).status, 200);
  assert.equal((await get('evil/Patient?name=x')).status, 200);
  assert.equal((await get('evil/Patient/addr/$everything')).status, 200, 'operation route');
  assert.equal((await get('evil/Patient/fail')).status, 500, 'an upstream error passes with its outcome rewritten');
  assert.equal((await get('evil/Patient/missing')).status, 404, 'error route');
  const statement = await get('evil/metadata');
  assert.equal(statement.status, 200, 'capabilities route');
  assert.equal(statement.body.instantiates[0], `${h.prefix}/evil/cs`);
  assert.equal(statement.body.rest[0].resource[0].searchParam[0].definition, `${h.prefix}/evil/SearchParameter/name`);
  const federated = await get('all/Patient?name=x');
  assert.equal(federated.status, 200, 'federated search');
  assert.equal(federated.body.entry[0].resource.meta.source, `${h.prefix}/evil`, 'the entries are there, rewritten');
  assert.equal(federated.body.entry[0].resource.identifier[0].value, 'upstream.invalid');
  assert.equal((await get('all/Patient/evil.addr')).status, 200, 'federated read');
  const refusedSearch = await get('all/Observation?code=x');
  assert.equal(refusedSearch.status, 404, "federated error route: the source's 4xx with its own issues");
  assert.match(JSON.stringify(refusedSearch.body.issue), /upstream\.invalid/, 'its words kept, its address redacted');
  const federatedStatement = await get('all/metadata');
  assert.equal(federatedStatement.status, 200, 'federated capabilities');
  assert.ok(h.answers.length >= 10, 'every answer above is scanned');
  assertNowhere(h.answers, evil.authority, 'the upstream address', true);
  assertNowhere(h.answers, evil.base, 'the upstream base', true);
  for (const token of evil.tokens) assertNowhere(h.answers, token, 'the bearer token');
});
