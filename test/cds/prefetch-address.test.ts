/**
 * CDS prefetch and non-public addresses (issue 13, item 3): with no `fhirServers` allowlist a caller
 * cannot make the service fetch from loopback, private, link-local or unique-local addresses, checked on
 * the resolved address; the caller's error never tells refused, closed and timed-out apart.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { isNonPublicAddress } from '../../src/cds/address-guard.js';
import { CDSHooksService } from '../../src/cds/index.js';
import type { CDSHooksServiceOptions } from '../../src/cds/index.js';
import { startApp } from '../support/serve.js';
import { freePort } from '../support/free-port.js';

const TOKEN = 'caller-token-7f3a';

/** A FHIR server on loopback that counts requests; `hang` never answers. */
async function fhirServer(t: TestContext, hang = false): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = http.createServer((_req, res) => {
    hits += 1;
    if (!hang) res.writeHead(200, { 'content-type': 'application/fhir+json' }).end('{"resourceType":"Patient","id":"123","name":[{"family":"Secret"}]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits: () => hits };
}

/** A CDS service on the default prefetch time-out unless `options` sets one. */
async function startCds(t: TestContext, options: CDSHooksServiceOptions = {}) {
  const cds = new CDSHooksService(options);
  cds.hook('patient-view', { id: 'svc', description: 'x', prefetch: { patient: 'Patient/{{context.patientId}}' } }, (req) => ({
    cards: [{ summary: `name ${JSON.stringify(req.prefetch.patient)}`.slice(0, 139), indicator: 'info', source: { label: 't' } }],
  }));
  const { base, log } = await startApp(t, {}, (app) => app.registerService(cds));
  const call = async (fhir: string) => {
    const res = await fetch(`${base}/cds/cds-services/svc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        hook: 'patient-view', hookInstance: randomUUID(), context: { userId: 'Practitioner/1', patientId: '123' },
        fhirServer: fhir, fhirAuthorization: { access_token: TOKEN, token_type: 'Bearer', expires_in: 300, scope: 'patient/*.read', subject: 's' },
      }),
    });
    return { status: res.status, text: await res.text() };
  };
  return { call, log };
}

test('without fhirServers, a loopback fhirServer (literal or a name that resolves to it) is never contacted: 412', async (t) => {
  const fhir = await fhirServer(t);
  const { port } = new URL(fhir.url);
  const { call, log } = await startCds(t);
  for (const target of [fhir.url, `http://localhost:${port}`, `https://[::ffff:127.0.0.1]:${port}`, `http://127.1.2.3:${port}`]) {
    const answer = await call(target);
    assert.equal(answer.status, 412, target);
    assert.match(answer.text, /is not allowed: prefetch reaches public addresses only, or the servers listed in the service's fhirServers option/, target);
    assert.ok(!answer.text.includes('Secret'), target);
    assert.ok(!answer.text.includes(String(port)) && !answer.text.includes('127.'), `the answer names no address: ${target}`);
  }
  assert.equal(fhir.hits(), 0, 'the loopback server was never contacted');
  const warnings = log.lines.filter((l) => l.level === 'warn' && l.message.startsWith('CDS prefetch refused'));
  assert.equal(warnings.length, 4);
  assert.ok(warnings.every((w) => /non-public address/.test(String(w.fields['reason']))), JSON.stringify(warnings));
  assert.ok(!JSON.stringify(log.lines).includes(TOKEN), 'the token is never logged');
});

test('without fhirServers, private, CGNAT, link-local, unique-local and unspecified https hosts are refused with one and the same answer', async (t) => {
  const { call } = await startCds(t);
  const targets = ['https://10.0.0.8', 'https://172.16.5.4', 'https://192.168.1.1', 'https://100.64.0.1', 'https://169.254.169.254',
    'https://[fd00::1]', 'https://[fe80::1]', 'https://[::1]', 'https://0.0.0.0', 'https://[::ffff:10.0.0.1]', 'https://[::]'];
  const answers = await Promise.all(targets.map(call));
  for (const [i, a] of answers.entries()) assert.equal(a.status, 412, targets[i]);
  assert.equal(new Set(answers.map((a) => a.text)).size, 1, 'the answers do not differ');
});

test('with fhirServers naming it, a loopback server is fetched; refused, closed and timed out read the same to the caller', async (t) => {
  const open = await fhirServer(t);
  const hanging = await fhirServer(t, true);
  const closed = `http://127.0.0.1:${await freePort()}`;
  const fhirServers = [open.url, hanging.url, closed];
  // The fetch that must answer goes through the default time-out; the hanging one through 300 ms.
  const patient = await startCds(t, { fhirServers });
  const impatient = await startCds(t, { fhirServers, prefetchTimeoutMs: 300 });
  const ok = await patient.call(open.url);
  assert.equal(ok.status, 200, ok.text);
  assert.match(ok.text, /Secret/);
  assert.equal(open.hits(), 1);
  const slow = await impatient.call(hanging.url);
  const shut = await impatient.call(closed);
  assert.equal(slow.status, 412);
  assert.equal(shut.status, 412);
  assert.equal(slow.text, shut.text, 'a timed-out server and a closed port answer alike');
  assert.doesNotMatch(JSON.parse(slow.text).error.message, /ERR_|TIMEOUT|NETWORK|refused|closed/i);
});

test('isNonPublicAddress: the non-public ranges, IPv4-mapped forms included; public addresses and names pass', () => {
  const blocked = ['127.0.0.1', '10.255.0.1', '172.31.255.255', '192.168.0.1', '100.127.255.254', '169.254.0.1', '0.0.0.0',
    '::1', '[::1]', '::', 'fc00::1', 'fdff::1', 'fe80::abcd', '::ffff:127.0.0.1', '::ffff:7f00:1', '[::ffff:a00:1]', '224.0.0.1', '255.255.255.255'];
  for (const a of blocked) assert.equal(isNonPublicAddress(a), true, a);
  for (const a of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111', 'ehr.example.org', 'localhost', '']) {
    assert.equal(isNonPublicAddress(a), false, a);
  }
});
