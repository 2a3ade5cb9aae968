import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FHIRGateway } from '../../../src/gateway/sync-gateway.js';
import { runGatewayScript, startRemoteSandbox, startSilentServer } from '../../support/sync-gateway-helpers.js';
import { sandbox } from '../../support/sandbox.js';

const SAFETY_MS = 90_000; // below the runner's 120 s per-test limit, so that this file reports the failure


test('close() ends the worker and its sockets; it is idempotent and later calls throw ERR_CLOSED', async (t) => {
  const sb = await startRemoteSandbox(t);
  const gw = new FHIRGateway({ events: false });
  gw.addSource('sb', await sb.connectionString());
  const id = gw.search('Patient', { _count: 1 }).entry![0]!.resource!.id!;
  assert.equal((await sb.stats()).openSockets, 1);
  gw.close();
  gw.close();
  for (const call of [() => gw.read('Patient', id), () => gw.addSource('x', 'fhir://127.0.0.1:1/fhir'), () => gw.sourceBaseUrl()]) {
    assert.throws(call, { code: 'ERR_CLOSED', message: /FHIRGateway is closed/ });
  }
  await waitFor(async () => (await sb.stats()).openSockets === 0);
});

test('a gateway that was never used closes without starting anything', () => {
  const gw = new FHIRGateway();
  gw.close();
  assert.throws(() => gw.read('Patient', 'x'), { code: 'ERR_CLOSED' });
});

test('using closes the gateway at the end of its block', async (t) => {
  const sb = await startRemoteSandbox(t);
  const cs = await sb.connectionString();
  let escaped: FHIRGateway;
  {
    using gw = new FHIRGateway({ events: false });
    gw.addSource('sb', cs);
    assert.equal(gw.search('Patient', { _count: 1 }).type, 'searchset');
    escaped = gw;
  }
  assert.throws(() => escaped.search('Patient'), { code: 'ERR_CLOSED' });
});

test('a script that leaves a gateway open still exits', async (t) => {
  const sb = await startRemoteSandbox(t);
  const { code, signal, out, err } = await runGatewayScript(t, sb, [
    'const bundle = gw.search("Patient", { _count: 1 });',
    'console.log("read", gw.read("Patient", bundle.entry[0].resource.id).id);',
    '// no close(): the worker and its keep-alive socket must not keep the process alive',
  ]);
  assert.equal(signal, null, `the script did not exit on its own; stderr: ${err}`);
  assert.equal(code, 0, err);
  assert.match(out, /^read \S+/);
  assert.equal((await sb.stats()).socketsAccepted, 1);
});

test('a call to a sandbox on the calling thread throws ERR_DEADLOCK at once', async (t) => {
  const local = await sandbox(t);
  const remote = await startRemoteSandbox(t);
  const gw = new FHIRGateway({ events: false, sameThreadOrigins: [local.origin] });
  t.after(() => gw.close());
  gw.addSource('local', local.connectionString());
  gw.addSource('alias', local.connectionString().replace('127.0.0.1', 'localhost'));
  // FHIR server elsewhere, token endpoint on this thread.
  gw.addSource('token-here', (await remote.connectionString()).replace(/token_url=[^&]+/, `token_url=${encodeURIComponent(local.tokenUrl)}`));
  gw.addSource('remote', await remote.connectionString());
  for (const source of [undefined, 'local', 'alias', 'token-here']) {
    assert.throws(() => gw.read('Patient', 'x', source), {
      code: 'ERR_DEADLOCK',
      message: /runs on this thread.*another process or worker thread.*AsyncFHIRGateway/s,
    });
  }
  assert.equal(gw.search('Patient', { _count: 1 }, 'remote').type, 'searchset');
  assert.equal(local.stats.requests.total, 0);
});

test('a server that never answers gives ERR_TIMEOUT, and the next call gets its own answer', async (t) => {
  const silent = await startSilentServer(t);
  const sb = await startRemoteSandbox(t);
  const gw = new FHIRGateway({ events: false });
  t.after(() => gw.close());
  gw.addSource('sb', await sb.connectionString());
  gw.addSource('silent', `fhir://${silent.origin.slice('http://'.length)}/fhir/?timeout=1`);
  const id = gw.search('Patient', { _count: 1 }, 'sb').entry![0]!.resource!.id!;
  assert.throws(() => gw.read('Patient', 'x', 'silent'), { code: 'ERR_TIMEOUT' });
  assert.equal(gw.read('Patient', id, 'sb').id, id);
  assert.throws(() => gw.search('Patient', {}, 'silent'), { code: 'ERR_TIMEOUT' });
  assert.equal(gw.search('Patient', { _count: 1 }, 'sb').entry![0]!.resource!.id, id);
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + SAFETY_MS;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, 'condition not met before the safety time-out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
