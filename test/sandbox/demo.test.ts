import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { sandboxFor } from './helpers.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function startDemo(t: TestContext, port: string): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/demo.ts'], {
    cwd: root,
    env: { ...process.env, PORT: port },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (d: Buffer) => { text += d.toString(); });
  child.stderr?.on('data', (d: Buffer) => { text += d.toString(); });
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, output: () => text, exited };
}

test('npm start prints a working FHIR base, token URL and connection string, and stops cleanly on SIGTERM', async (t) => {
  const demo = startDemo(t, '0');
  while (!demo.output().includes('Ctrl-C')) {
    assert.equal(demo.child.exitCode, null, demo.output());
    await once(demo.child.stdout!, 'data');
  }
  const fhirBase = /FHIR base:\s+(\S+)/.exec(demo.output())?.[1] as string;
  const tokenUrl = /Token endpoint:\s+(\S+)/.exec(demo.output())?.[1] as string;
  const connection = new URL(/Connection string:\s+(\S+)/.exec(demo.output())?.[1] as string);
  assert.equal(connection.protocol, 'fhir:');
  assert.equal(`http://${connection.host}${connection.pathname}`, `${fhirBase}/`);
  assert.equal(connection.searchParams.get('token_url'), tokenUrl);
  assert.match(demo.output(), /curl -s -u fhirgate-demo:demo-secret/);
  const id = connection.searchParams.get('client_id') as string;
  const secret = connection.searchParams.get('client_secret') as string;
  const token = await fetch(tokenUrl, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  assert.equal(token.status, 200);
  const { access_token: accessToken } = (await token.json()) as { access_token: string };
  const read = await fetch(`${fhirBase}/Patient/a-patient-1`, { headers: { authorization: `Bearer ${accessToken}` } });
  assert.equal(read.status, 200);
  demo.child.kill('SIGTERM');
  assert.equal(await demo.exited, 0);
});

test('npm start on a busy port prints a clear message and exits with code 1', async (t) => {
  const busy = await sandboxFor(t);
  const demo = startDemo(t, new URL(busy.origin).port);
  assert.equal(await demo.exited, 1);
  assert.match(demo.output(), /already in use/);
  const bad = startDemo(t, 'eighty');
  assert.equal(await bad.exited, 1);
  assert.match(bad.output(), /PORT must be an integer/);
});
