import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { FHIRGateway } from '../../src/gateway/index.js';
import { startApp } from '../support/serve.js';
import { call } from '../support/host-helpers.js';
import { helperScript, LOADER } from '../support/code-tree.js';

/** Starts the sandbox in a child process and resolves to its connection string. */
async function sandboxInChild(t: TestContext): Promise<string> {
  const script = helperScript(import.meta.url, './sandbox-process');
  const child = spawn(process.execPath, [...LOADER, script], { stdio: ['pipe', 'pipe', 'inherit'] });
  t.after(async () => {
    if (child.exitCode !== null) return;
    const exited = once(child, 'exit');
    child.stdin.end();
    await exited;
  });
  let buffered = '';
  for await (const chunk of child.stdout) {
    buffered += String(chunk);
    if (buffered.includes('\n')) break;
  }
  return (JSON.parse(buffered.split('\n')[0]!) as { connectionString: string }).connectionString;
}

test('a transform handler on a sync FHIRGateway reads from a sandbox in another process', async (t) => {
  const connectionString = await sandboxInChild(t);
  const gw = new FHIRGateway();
  gw.addSource('remote', connectionString);
  gw.transform('Patient', (id: string, source?: string) => {
    const patient = gw.read('Patient', id, source);
    return { ...patient, meta: { tag: [{ code: 'sync-transformed' }] } };
  });
  const { base } = await startApp(t, {}, (app) => app.registerGateway(gw));

  const res = await call(base, '/fhir/transform/Patient/a-patient-1?source=remote');
  assert.equal(res.status, 200);
  assert.match(String(res.headers['content-type']), /^application\/fhir\+json/);
  const body = res.json();
  assert.equal(body.id, 'a-patient-1');
  assert.equal(body.meta.tag[0].code, 'sync-transformed');

  const missing = await call(base, '/fhir/transform/Patient/nobody?source=remote');
  assert.ok(missing.status >= 400);
  assert.equal(missing.json().resourceType, 'OperationOutcome');

  const status = (await call(base, '/gateway/status')).json();
  assert.equal(status.gateways.FHIRGateway.status, 'active');
});
