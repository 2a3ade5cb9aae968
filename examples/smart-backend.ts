/**
 * SMART Backend Services end to end: the gateway discovers the token endpoint (no `token_url`), signs
 * its JWT assertions with a private key, and the host publishes the public keys at
 * `/.well-known/jwks.json`, the JWKS URL you register with Epic or a network. A next key is staged and
 * published beside the current one; `gw.rotateKey()` switches to it without a restart.
 *
 * Here the embedded sandbox plays the EHR: it knows the app only by that JWKS URL, which it reads at
 * every token request, as a real authorization server does (with a cache).
 *
 * Run it: `node --import tsx examples/smart-backend.ts`
 * @module
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AsyncFHIRGateway, createJSONLogger, createServiceAPI } from '../src/index.js';
import { startSandbox } from '../src/sandbox/index.js';

// Two private keys, as an operator would keep them: files readable only by the service (0600).
const keyDir = mkdtempSync(join(tmpdir(), 'fhirgate-smart-example-'));
const writeKey = (name: string, key: ReturnType<typeof generateKeyPairSync>['privateKey']): string => {
  const path = join(keyDir, name);
  writeFileSync(path, key.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
  return path;
};
const currentKey = writeKey('key-2026.pem', generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey);
const nextKey = writeKey('key-2027.pem', generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);

try {
  // The app first: its JWKS URL is what the EHR is told about the client.
  await using gw = new AsyncFHIRGateway();
  await using app = createServiceAPI({ title: 'SMART backend example', logger: createJSONLogger({ level: 'warn' }), apiKeys: ['example-api-key'] });
  app.registerGateway(gw);
  const server = await app.listen(0);
  const jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;

  const ehr = await startSandbox({ clients: [{ clientId: 'backend-app', jwks: jwksUrl }] });
  try {
    // No token_url: it comes from <base>/.well-known/smart-configuration. The next key is staged.
    gw.addSource('ehr', ehr.connectionString('backend-app', { keyPath: currentKey, discover: true }), { nextKeyPath: nextKey });

    const published = async (): Promise<string> => {
      const res = await fetch(jwksUrl); // public: no API key needed
      const { keys } = (await res.json()) as { keys: { kid: string; alg: string }[] };
      return `${keys.map((k) => `${k.kid} (${k.alg})`).join(', ')}; ${res.headers.get('cache-control')}`;
    };
    console.log(`JWKS: ${await published()}`);

    const before = await gw.read('Patient', 'a-patient-1', 'ehr');
    console.log(`token endpoint discovered from ${ehr.fhirBase}/.well-known/smart-configuration (${ehr.stats.requests.byKind.metadata} request)`);
    console.log(`read Patient/${before.id}, assertion signed with kid ${ehr.stats.lastKeyId}`);

    const { kid, alg } = gw.rotateKey('ehr');
    console.log(`rotated: ${kid} (${alg}) signs from the next token request on`);

    ehr.faults.expireTokens(); // the sandbox drops its tokens, so that the gateway asks for a new one
    const after = await gw.read('Patient', 'a-patient-2', 'ehr');
    console.log(`read Patient/${after.id}, assertion signed with kid ${ehr.stats.lastKeyId}`);
    console.log(`JWKS after rotation: ${await published()}`);
  } finally {
    await ehr.close();
  }
} finally {
  rmSync(keyDir, { recursive: true, force: true });
}
