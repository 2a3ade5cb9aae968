import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import { setImmediate as tick } from 'node:timers/promises';
import type { Sandbox } from '../../src/sandbox/index.js';
import { sandbox as testSandbox } from '../support/sandbox.js';
import { FORM, fhirFor } from './helpers.js';

/** One GET over a given agent; resolves with the status and the client socket. */
function get(url: string, agent: Agent): Promise<{ status: number; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, socket: req.socket as Socket }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !condition(); i++) await tick();
  assert.ok(condition());
}

const secretForm = 'grant_type=client_credentials&client_id=fhirgate-demo&client_secret=demo-secret';
const tokenStatus = async (sandbox: Sandbox): Promise<number> =>
  (await fetch(sandbox.tokenUrl, { method: 'POST', headers: FORM, body: secretForm })).status;

test('failNext answers the next n FHIR requests with the status, Retry-After and an OperationOutcome', async (t) => {
  const { sandbox, fhir } = await fhirFor(t);
  sandbox.faults.failNext(2, 429, { retryAfter: 3 });
  assert.equal(await tokenStatus(sandbox), 200, 'token requests are not FHIR requests');
  for (let i = 0; i < 2; i++) {
    const res = await fhir.json('/Patient/a-patient-1');
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('retry-after'), '3');
    assert.equal(res.body.issue[0].code, 'throttled');
  }
  assert.equal((await fhir('/Patient/a-patient-1')).status, 200);
  sandbox.faults.failNext(1, 503, { body: 'down for maintenance', retryAfter: 'Wed, 21 Oct 2015 07:28:00 GMT' });
  const text = await fhir('/Patient/a-patient-1');
  assert.equal(text.status, 503);
  assert.match(text.headers.get('content-type') ?? '', /^text\/plain/);
  assert.equal(text.headers.get('retry-after'), 'Wed, 21 Oct 2015 07:28:00 GMT');
  assert.equal(await text.text(), 'down for maintenance');
  sandbox.faults.failNext(1, 500, { body: { resourceType: 'OperationOutcome', issue: [{ severity: 'fatal', code: 'exception' }] } });
  const json = await fhir.json('/Patient/a-patient-1');
  assert.equal(json.status, 500);
  assert.equal(json.body.issue[0].severity, 'fatal');
  assert.equal(sandbox.stats.requests.total, 6);
});

test('failNext with target token or all reaches the token endpoint', async (t) => {
  const { sandbox, fhir } = await fhirFor(t);
  sandbox.faults.failNext(1, 503, { target: 'token' });
  assert.equal((await fhir('/Patient/a-patient-1')).status, 200);
  assert.equal(await tokenStatus(sandbox), 503);
  assert.equal(await tokenStatus(sandbox), 200);
  sandbox.faults.failNext(2, 502, { target: 'all' });
  assert.equal(await tokenStatus(sandbox), 502);
  assert.equal((await fhir('/Patient/a-patient-1')).status, 502);
  assert.equal((await fhir('/Patient/a-patient-1')).status, 200);
});

test('dropNext destroys the socket without an answer, then requests work again', async (t) => {
  const { sandbox, fhir } = await fhirFor(t);
  sandbox.faults.dropNext(1);
  await assert.rejects(fhir('/Patient/a-patient-1'), TypeError);
  assert.equal((await fhir('/Patient/a-patient-1')).status, 200);
  assert.equal(sandbox.stats.requests.total, 2);
});

test('latency delays each FHIR request by at least the given time; reset turns it off', async (t) => {
  const { sandbox, fhir } = await fhirFor(t);
  sandbox.faults.latency(250);
  const started = performance.now();
  assert.equal((await fhir('/Patient/a-patient-1')).status, 200);
  assert.ok(performance.now() - started >= 240);
  sandbox.faults.latency(60_000);
  await assert.rejects(fhir('/Patient/a-patient-1', { signal: AbortSignal.timeout(100) }));
  sandbox.faults.reset();
  assert.equal((await fhir('/Patient/a-patient-1')).status, 200);
});

test('faults.reset() cancels pending failures and drops', async (t) => {
  const { sandbox, fhir } = await fhirFor(t);
  sandbox.faults.failNext(3, 503);
  sandbox.faults.dropNext(3);
  sandbox.faults.reset();
  assert.equal((await fhir('/Patient/a-patient-1')).status, 200);
});

test('closeSockets destroys open keep-alive sockets; socket counters follow', async (t) => {
  const sandbox = await testSandbox(t, { open: true });
  const agents = [0, 1, 2].map(() => new Agent({ keepAlive: true }));
  t.after(() => agents.forEach((a) => a.destroy()));
  const sockets = await Promise.all(agents.map(async (agent) => (await get(`${sandbox.fhirBase}/Patient/a-patient-1`, agent)).socket));
  await until(() => sandbox.stats.openSockets === 3);
  assert.equal(sandbox.stats.socketsAccepted, 3);
  assert.equal(sandbox.stats.maxOpenSockets, 3);
  const closed = sockets.map((s) => once(s, 'close'));
  sandbox.faults.closeSockets();
  await Promise.all(closed);
  await until(() => sandbox.stats.openSockets === 0);
  assert.equal(sandbox.stats.maxOpenSockets, 3);
  sandbox.stats.reset();
  assert.equal(sandbox.stats.maxOpenSockets, 0);
  assert.equal(sandbox.stats.socketsAccepted, 0);
  assert.equal(sandbox.stats.requests.total, 0);
  assert.equal((await get(`${sandbox.fhirBase}/Patient/a-patient-1`, agents[0] as Agent)).status, 200);
  assert.equal(sandbox.stats.socketsAccepted, 1);
  assert.deepEqual(sandbox.stats.requests, { total: 1, byMethod: { GET: 1 }, byKind: { read: 1 } });
});

test('fault switches refuse bad arguments with RangeError or TypeError', async (t) => {
  const { faults } = await testSandbox(t);
  assert.throws(() => faults.latency(-1), RangeError);
  assert.throws(() => faults.failNext(0, 503), RangeError);
  assert.throws(() => faults.failNext(1, 200), RangeError);
  assert.throws(() => faults.dropNext(1.5), RangeError);
  assert.throws(() => faults.failNext(1, 503, { retryAfter: -1 }), TypeError);
  assert.throws(() => faults.failNext(1, 503, { target: 'fhri' as never }), TypeError);
});
