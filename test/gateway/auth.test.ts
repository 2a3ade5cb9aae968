import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspect } from 'node:util';
import { writeTestKeys } from '../support/keys.js';
import { startServer } from '../support/test-server.js';
import { sandbox } from '../support/sandbox.js';
import { gateway, settle } from '../support/gateway-fixtures.js';

test('both OAuth flows through the gateway: a secret, and RSA and EC keys in every key format', async (t) => {
  const keys = writeTestKeys(t);
  const s = await sandbox(t, {
    clients: [{ clientId: 'secret-app', clientSecret: 'x+y:z%' }, ...keys.map((k, i) => ({ clientId: `key-${i}`, publicKey: k.publicKey }))],
  });
  const { gw } = gateway(t);
  gw.addSource('secret', s.connectionString('secret-app'));
  keys.forEach((k, i) => gw.addSource(`key-${i}`, s.connectionString(`key-${i}`, { keyPath: k.path })));
  const results = await Promise.all(gw.sourceNames.map((name) => gw.read('Patient', 'a-patient-1', name)));
  assert.ok(results.every((p) => p.id === 'a-patient-1'));
  assert.equal(s.stats.tokensIssued, keys.length + 1);
  assert.equal(s.stats.tokenErrors, 0);
});

test('one token request for 100 sequential reads', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t);
  gw.addSource('s', s.connectionString());
  for (let i = 0; i < 100; i++) await gw.read('Patient', 'a-patient-1');
  assert.equal(s.stats.tokenRequests, 1);
  assert.equal(s.stats.requests.byKind.read, 100);
});

test('500 concurrent reads on a cold token make exactly one token request', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t);
  gw.addSource('s', s.connectionString());
  const patients = await Promise.all(Array.from({ length: 500 }, () => gw.read('Patient', 'a-patient-2')));
  assert.equal(patients.length, 500);
  assert.equal(s.stats.tokenRequests, 1);
});

test('tokens expired mid-run: 401, one refresh, and every read succeeds', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t);
  gw.addSource('s', s.connectionString());
  await gw.read('Patient', 'a-patient-1');
  s.faults.expireTokens();
  const reads = await Promise.all(Array.from({ length: 50 }, () => gw.read('Patient', 'a-patient-1')));
  assert.ok(reads.every((p) => p.id === 'a-patient-1'));
  assert.equal(s.stats.tokenRequests, 2);
  assert.equal(gw.getPoolStatus().sources.s?.errors, 0);
});

test('a 401 with a fresh token is not retried again: ERR_FHIR_HTTP 401', async (t) => {
  let tokens = 0;
  const srv = await startServer(t, (req, res) => {
    if (req.url === '/token') {
      tokens++;
      res.end(JSON.stringify({ access_token: `t${tokens}`, token_type: 'Bearer', expires_in: 3600 }));
    } else {
      res.writeHead(401);
      res.end();
    }
  });
  const { gw } = gateway(t);
  gw.addSource('s', `fhir://${srv.url.slice(7)}/?client_id=a&client_secret=b&token_url=${encodeURIComponent(`${srv.url}/token`)}`);
  await assert.rejects(gw.read('Patient', '1'), { code: 'ERR_FHIR_HTTP', status: 401 });
  assert.equal(tokens, 2);
  assert.deepEqual(srv.seen.filter((r) => r.url !== '/token').map((r) => r.headers.authorization), ['Bearer t1', 'Bearer t2']);
});

test('the token goes to the source origin only; credentials never leave it', async (t) => {
  const other = await startServer(t, (_req, res) => res.end('{"resourceType":"Patient","id":"x"}'));
  const srv = await startServer(t, (req, res) => {
    if (req.url === '/token') res.end(JSON.stringify({ access_token: 'the-token', token_type: 'Bearer', expires_in: 3600 }));
    else {
      res.writeHead(201, { location: `${other.url}/Patient/x` });
      res.end();
    }
  });
  const { gw } = gateway(t);
  gw.addSource('s', `fhir://${srv.url.slice(7)}/?client_id=a&client_secret=b&token_url=${encodeURIComponent(`${srv.url}/token`)}`);
  await assert.rejects(gw.create({ resourceType: 'Patient' }), { code: 'ERR_CROSS_ORIGIN' });
  assert.equal(other.seen.length, 0);
});

test('no secret in any error message, status object or event', async (t) => {
  const secret = 'Sup3r+Secret:Value%';
  const s = await sandbox(t, { clients: [{ clientId: 'app', clientSecret: secret }] });
  const { gw, events } = gateway(t);
  gw.addSource('good', s.connectionString('app'));
  gw.addSource('bad', s.connectionString('app').replace(encodeURIComponent(secret), encodeURIComponent(`${secret}-wrong`)));
  await gw.read('Patient', 'a-patient-1', 'good');
  await gw.search('Patient', { family: 'x' }, 'good');
  const failures: unknown[] = [];
  failures.push(await gw.read('Patient', 'a-patient-1', 'bad').catch((e: unknown) => e));
  failures.push(await gw.read('Patient', 'nope', 'good').catch((e: unknown) => e));
  try {
    gw.addSource('x', `fhir://h.example.org/?client_id=a&client_secret=${encodeURIComponent(secret)}`);
  } catch (e) {
    failures.push(e);
  }
  await settle();
  assert.equal((failures[0] as { code?: string }).code, 'ERR_AUTH_TOKEN');
  const dump = (e: unknown): string => JSON.stringify({ e, message: (e as Error).message, stack: (e as Error).stack, cause: inspect((e as Error).cause, { depth: 5 }) });
  const everything = [
    ...failures.map(dump),
    JSON.stringify(gw.getPoolStatus()),
    JSON.stringify(events),
    inspect(gw, { depth: 10, showHidden: true }),
    JSON.stringify(gw),
  ].join('\n');
  for (const form of [secret, encodeURIComponent(secret), Buffer.from(`app:${secret}`).toString('base64')]) {
    assert.ok(!everything.includes(form), `leaked ${form}`);
  }
  assert.ok(!everything.includes('Bearer '));
});
