/**
 * The synchronous gateway rotates its assertion key in its worker and publishes both keys, like the
 * async one: a sandbox (in a worker thread) that knows only the next key refuses the gateway until
 * `rotateKey` switches to it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FHIRGateway } from '../../../src/gateway/sync-gateway.js';
import { jwkThumbprint, toPublicJWK } from '../../../src/lib/jwt/keys.js';
import { threeKeys } from '../../support/keys.js';
import { startApp } from '../../support/serve.js';
import { call } from '../../support/host-helpers.js';
import { startRemoteSandbox } from '../../support/sync-gateway-helpers.js';

test('FHIRGateway: refused with the current key, rotateKey switches to the next one, the host publishes what the worker holds', async (t) => {
  const [k1, k2, k3] = threeKeys(t);
  const kid = (i: 0 | 1 | 2): string => jwkThumbprint(toPublicJWK([k1, k2, k3][i]!.publicKey));
  const nextOnly = { keys: [{ ...toPublicJWK(k2!.publicKey), kid: kid(1) }] };
  const sb = await startRemoteSandbox(t, { clients: [{ clientId: 'backend', jwks: nextOnly }] });
  const gw = new FHIRGateway({ events: false });
  t.after(() => gw.close());
  assert.deepEqual(gw.jwks(), { keys: [] }, 'no worker yet, no keys');
  gw.addSource('sb', await sb.connectionString('backend', { keyPath: k1!.path, discover: true }), { nextKeyPath: k2!.path });
  assert.throws(() => gw.read('Patient', 'a-patient-1'), { code: 'ERR_AUTH_TOKEN', status: 401, message: /no key in the client's JWKS/ });
  assert.deepEqual(gw.jwks().keys.map((k) => [k.kid, k.alg]), [[kid(0), 'ES384'], [kid(1), 'RS384']]);

  assert.deepEqual(gw.rotateKey('sb', { nextKeyPath: k3!.path }), { kid: kid(1), alg: 'RS384' });
  assert.equal(gw.read('Patient', 'a-patient-1').id, 'a-patient-1');
  assert.equal((await sb.stats()).lastAuthMethod, 'private_key_jwt');

  const { base } = await startApp(t, {}, (app) => app.registerGateway(gw));
  const published = (await call(base, '/.well-known/jwks.json')).json();
  assert.deepEqual(published.keys.map((k: { kid: string }) => k.kid), [kid(1), kid(2)]);
  assert.throws(() => gw.rotateKey('sb', { nextKeyPath: 7 as never }), /TypeError: rotateKey: options\.nextKeyPath/);
  assert.throws(() => gw.addSource('x', 'fhir://127.0.0.1:9/?client_id=a&client_secret=b', { nextKeyPath: k1!.path }), /needs a JWT assertion source/);
  gw.close();
  assert.throws(() => gw.rotateKey('sb'), { code: 'ERR_CLOSED' });
  assert.deepEqual(gw.jwks(), { keys: [] });
});
