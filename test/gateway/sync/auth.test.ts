import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { FHIRGateway } from '../../../src/gateway/sync-gateway.js';
import { startRemoteSandbox } from '../../support/sync-gateway-helpers.js';

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'fhirgate-sync-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('the client secret flow fetches one token, sent with HTTP Basic', async (t) => {
  const sb = await startRemoteSandbox(t, { clients: [{ clientId: 'app', clientSecret: 'a+b:c%d' }] });
  const gw = new FHIRGateway({ events: false });
  t.after(() => gw.close());
  gw.addSource('sb', await sb.connectionString('app'));
  const bundle = gw.search('Patient', { _count: 3 });
  for (const entry of bundle.entry ?? []) gw.read('Patient', entry.resource!.id!);
  const stats = await sb.stats();
  assert.equal(stats.tokenRequests, 1);
  assert.equal(stats.lastAuthMethod, 'client_secret_basic');
  assert.equal(stats.requests.byKind.read, bundle.entry?.length);
});

test('the JWT assertion flow signs with RSA (RS384) and EC P-384 (ES384) key files', async (t) => {
  const dir = tempDir(t);
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-384' });
  const rsaPath = join(dir, 'rsa.pem');
  const ecPath = join(dir, 'ec.pem');
  writeFileSync(rsaPath, rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  writeFileSync(ecPath, ec.privateKey.export({ type: 'sec1', format: 'pem' }));
  const sb = await startRemoteSandbox(t, {
    clients: [
      { clientId: 'rsa-app', publicKey: rsa.publicKey.export({ format: 'jwk' }) },
      { clientId: 'ec-app', publicKey: ec.publicKey.export({ format: 'jwk' }) },
    ],
  });
  const gw = new FHIRGateway({ events: false });
  t.after(() => gw.close());
  gw.addSource('rsa', await sb.connectionString('rsa-app', { keyPath: rsaPath }));
  gw.addSource('ec', await sb.connectionString('ec-app', { keyPath: ecPath }));
  const id = gw.search('Patient', { _count: 1 }, 'rsa').entry![0]!.resource!.id!;
  assert.equal(gw.read('Patient', id, 'ec').id, id);
  assert.equal(gw.read('Patient', id, 'rsa').id, id);
  const stats = await sb.stats();
  assert.equal(stats.tokenRequests, 2); // one per source
  assert.equal(stats.lastAuthMethod, 'private_key_jwt');
});
