import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import { isFhirgateError } from '../../src/errors.js';
import { seedResources, startSandbox } from '../../src/sandbox/index.js';
import { sandbox as testSandbox } from '../support/sandbox.js';
import { fhirFor, ids } from './helpers.js';

test('startSandbox resolves to the FHIR base, token URL and origin on 127.0.0.1', async (t) => {
  const sandbox = await testSandbox(t);
  assert.match(sandbox.fhirBase, /^http:\/\/127\.0\.0\.1:\d+\/fhir\/R4$/);
  assert.equal(sandbox.tokenUrl, `${sandbox.origin}/oauth2/token`);
  assert.equal(sandbox.fhirBase, `${sandbox.origin}/fhir/R4`);
  assert.notEqual(new URL(sandbox.origin).port, '0');
});

test('a sandbox leaves no trace on globalThis: the sync gateway is told about same-thread servers, not told by the sandbox', async () => {
  const before = Object.getOwnPropertySymbols(globalThis).length;
  const sandbox = await startSandbox();
  assert.equal(Object.getOwnPropertySymbols(globalThis).length, before);
  assert.equal((globalThis as Record<symbol, unknown>)[Symbol.for('fhirgate.sandbox.origins')], undefined);
  await sandbox.close();
});
test('close() closes the server and every open socket, and is idempotent', async () => {
  const sandbox = await startSandbox({ open: true });
  const agent = new Agent({ keepAlive: true });
  const socket = await new Promise<Socket>((resolve, reject) => {
    const req = request(`${sandbox.fhirBase}/Patient/a-patient-1`, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(req.socket as Socket));
    });
    req.on('error', reject);
    req.end();
  });
  assert.equal(sandbox.stats.openSockets, 1);
  socket.ref(); // an idle keep-alive socket is unref'd: keep the loop alive until it closes
  const socketClosed = once(socket, 'close');
  const first = sandbox.close();
  assert.equal(sandbox.close(), first);
  await first;
  await socketClosed;
  await assert.rejects(fetch(`${sandbox.fhirBase}/metadata`), TypeError);
  await sandbox.close();
  agent.destroy();
});

test('close() ends a request waiting in fault latency without an answer', async () => {
  const sandbox = await startSandbox({ open: true });
  sandbox.faults.latency(60_000);
  const pending = fetch(`${sandbox.fhirBase}/Patient/a-patient-1`);
  while (sandbox.stats.requests.total === 0) await new Promise((r) => setImmediate(r));
  await sandbox.close();
  await assert.rejects(pending, TypeError);
});

test('await using closes the sandbox', async () => {
  let origin = '';
  {
    await using sandbox = await startSandbox();
    origin = sandbox.origin;
    assert.equal((await fetch(`${origin}/fhir/R4/metadata`)).status, 200);
  }
  await assert.rejects(fetch(`${origin}/fhir/R4/metadata`), TypeError);
});

test('a busy port rejects with ERR_NETWORK naming the port', async (t) => {
  const first = await testSandbox(t);
  const port = Number(new URL(first.origin).port);
  await assert.rejects(startSandbox({ port }), (err: unknown) => {
    assert.ok(isFhirgateError(err, 'ERR_NETWORK'));
    assert.match(err.message, new RegExp(`${port}.*already in use`));
    return true;
  });
});

test('connectionString builds fhir:// strings for secret and key clients', async (t) => {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
  const sandbox = await testSandbox(t, {
    clients: [{ clientId: 'demo app', clientSecret: 's&e=c+r%t' }, { clientId: 'keyed', publicKey }],
  });
  const host = sandbox.origin.slice('http://'.length);
  const secret = sandbox.connectionString();
  assert.equal(secret, `fhir://${host}/fhir/R4/?client_id=demo%20app&client_secret=s%26e%3Dc%2Br%25t&token_url=${encodeURIComponent(sandbox.tokenUrl)}`);
  const parsed = new URL(secret);
  assert.equal(parsed.searchParams.get('client_secret'), 's&e=c+r%t');
  assert.equal(parsed.pathname, '/fhir/R4/');
  assert.equal(sandbox.connectionString('demo app', { scope: 'system/*.rs' }), `${secret}&scope=system%2F*.rs`);
  const keyed = new URL(sandbox.connectionString('keyed', { keyPath: '/keys/my key.pem' }));
  assert.equal(keyed.searchParams.get('client_secret_path'), '/keys/my key.pem');
  assert.equal(keyed.searchParams.get('use_jwt_assertion'), 'true');
  assert.equal(keyed.searchParams.get('client_secret'), null);
  assert.throws(() => sandbox.connectionString('keyed'), TypeError);
  assert.throws(() => sandbox.connectionString('nobody'), RangeError);
  assert.throws(() => sandbox.connectionString('keyed', { keyPath: '' }), TypeError);
  assert.throws(() => sandbox.connectionString('demo app', { scope: 1 as never }), TypeError);
});

test('seed: false starts empty, "b" gives a different data set, an array gives exactly those resources', async (t) => {
  const empty = await fhirFor(t, { open: true, seed: false });
  assert.equal((await empty.fhir.json('/Patient')).body.total, 0);
  const b = await fhirFor(t, { open: true, seed: 'b' });
  const patientsB = ids((await b.fhir.json('/Patient')).body);
  assert.deepEqual(patientsB, ['b-patient-1', 'b-patient-2', 'b-patient-3', 'b-patient-4']);
  assert.equal((await b.fhir('/Patient/a-patient-1')).status, 404);
  const own = await fhirFor(t, { open: true, seed: [{ resourceType: 'Patient', id: 'p1' }, { resourceType: 'Patient' }] });
  assert.equal((await own.fhir.json('/Patient')).body.total, 2);
  assert.equal((await own.fhir('/Patient/p1')).status, 200);
});

test('the seed data is deterministic: patients with observations in both categories and conditions', () => {
  assert.deepEqual(seedResources('a'), seedResources('a'));
  const a = seedResources('a');
  const patients = a.filter((r) => r.resourceType === 'Patient');
  assert.equal(patients.length, 5);
  for (const p of patients) {
    const ref = `Patient/${p.id}`;
    const obs = a.filter((r) => r.resourceType === 'Observation' && r.subject?.reference === ref);
    const cats = new Set(obs.flatMap((o) => (o.resourceType === 'Observation' ? o.category ?? [] : []).flatMap((c) => c.coding ?? []).map((c) => c.code)));
    assert.deepEqual([...cats].sort(), ['laboratory', 'vital-signs']);
  }
  assert.ok(a.some((r) => r.resourceType === 'Condition'));
  const idsA = new Set(a.map((r) => r.id));
  assert.ok(seedResources('b').every((r) => !idsA.has(r.id)));
});

test('misused options throw TypeError or RangeError naming the option', async () => {
  const cases: [unknown, ErrorConstructor, RegExp][] = [
    [{ port: -1 }, RangeError, /port/],
    [{ port: 1.5 }, RangeError, /port/],
    [{ port: '80' }, TypeError, /port/],
    [{ host: '' }, TypeError, /host/],
    [{ open: 'yes' }, TypeError, /open/],
    [{ tokenLifetimeSeconds: 0 }, RangeError, /tokenLifetimeSeconds/],
    [{ bodyLimit: 0 }, RangeError, /bodyLimit/],
    [{ seed: 'c' }, TypeError, /seed/],
    [{ seed: [{ id: 'x' }] }, TypeError, /seed\[0\]/],
    [{ seed: [{ resourceType: 'Patient', id: 'bad id' }] }, TypeError, /seed\[0\]\.id/],
    [{ clients: {} }, TypeError, /clients/],
    [{ clients: [null] }, TypeError, /clients\[0\]/],
    [{ clients: [{ clientId: '' , clientSecret: 'x' }] }, TypeError, /clients\[0\]\.clientId/],
    [{ clients: [{ clientId: 'a' }] }, TypeError, /exactly one/],
    [{ clients: [{ clientId: 'a', clientSecret: '' }] }, TypeError, /clientSecret/],
    [{ clients: [{ clientId: 'a', publicKey: { kty: 'nope' } }] }, TypeError, /publicKey/],
    [{ clients: [{ clientId: 'a', clientSecret: 'x' }, { clientId: 'a', clientSecret: 'y' }] }, TypeError, /repeats/],
    [null, TypeError, /options/],
  ];
  for (const [options, type, message] of cases) {
    await assert.rejects(startSandbox(options as never), (err: Error) => err instanceof type && message.test(err.message), JSON.stringify(options));
  }
});

test('stats count requests by method and kind', async (t) => {
  const { sandbox, fhir } = await fhirFor(t);
  await fhir('/Patient/a-patient-1');
  await fhir('/Patient?gender=male');
  await fhir('/Patient', { method: 'POST', headers: { 'content-type': 'application/fhir+json' }, body: '{"resourceType":"Patient"}' });
  await fhir('/metadata');
  const counts = sandbox.stats.requests;
  assert.equal(counts.total, 4);
  assert.deepEqual(counts.byMethod, { GET: 3, POST: 1 });
  assert.deepEqual(counts.byKind, { read: 1, search: 1, create: 1, metadata: 1 });
  assert.ok(Object.isFrozen(counts));
});
