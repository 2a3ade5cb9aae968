import assert from 'node:assert/strict';
import { test } from 'node:test';
import { retryMessages } from '../../support/retry-messages.js';
import { startServer, until } from '../../support/test-server.js';
import type { TestServer } from '../../support/test-server.js';
import { gateway } from '../../support/gateway-fixtures.js';

/** `fhir://` for a plain test server: no credentials. */
const plain = (srv: TestServer): string => `fhir://${srv.url.slice('http://'.length)}/fhir`;
/** `fhir://` with client credentials whose token endpoint is `/token` on the same server. */
const withAuth = (srv: TestServer): string =>
  `fhir://${srv.url.slice('http://'.length)}/fhir?client_id=app&client_secret=s3cret&token_url=${encodeURIComponent(`${srv.url}/token`)}`;

const patient = JSON.stringify({ resourceType: 'Patient', id: '1' });

test('the upstream closes in the middle of the body: ERR_NETWORK, no hang, not retried', async (t) => {
  const srv = await startServer(t, (req, res) => {
    res.writeHead(200, { 'content-type': 'application/fhir+json', 'content-length': String(patient.length * 10) });
    res.write(patient.slice(0, 10), () => setImmediate(() => req.socket.destroy()));
  });
  const { gw } = gateway(t);
  gw.addSource('s', plain(srv));
  await assert.rejects(gw.read('Patient', '1'), { code: 'ERR_NETWORK', message: /GET http:\/\/127\.0\.0\.1:\d+\/fhir\/Patient\/1 failed/ });
  assert.equal(srv.seen.length, 1);
});

test('a 200 with a body that is not JSON: ERR_FHIR_RESPONSE with the status', async (t) => {
  const srv = await startServer(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/fhir+json' });
    res.end('{"resourceType": "Patient", "id": ');
  });
  const { gw } = gateway(t);
  gw.addSource('s', plain(srv));
  await assert.rejects(gw.read('Patient', '1'), { code: 'ERR_FHIR_RESPONSE', status: 200, message: /not JSON/ });
  await assert.rejects(gw.search('Patient', { name: 'x' }), { code: 'ERR_FHIR_RESPONSE', status: 200 });
});

test('an answer over maxResponseBytes: ERR_RESPONSE_TOO_LARGE, and the socket is destroyed long before the server is done', async (t) => {
  const chunk = Buffer.alloc(16 * 1024, 'x');
  const planned = 64 * 1024 * 1024;
  let written = 0;
  let closedAt: number | undefined;
  const srv = await startServer(t, (req, res) => {
    if (req.url?.endsWith('/declared')) {
      res.writeHead(200, { 'content-length': String(planned) });
      res.flushHeaders();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/fhir+json' });
    res.on('close', () => (closedAt = written));
    const pump = (): void => {
      while (written < planned && !res.destroyed) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (written >= planned) res.end();
    };
    pump();
  });
  const { gw } = gateway(t, { maxResponseBytes: 256 * 1024 });
  gw.addSource('s', plain(srv));
  await assert.rejects(gw.read('Patient', '1'), { code: 'ERR_RESPONSE_TOO_LARGE', message: /larger than 262144 bytes/ });
  await until(() => closedAt !== undefined, 'the server to see its socket close');
  assert.ok(closedAt !== undefined && closedAt < planned / 4, `the server had written ${closedAt} of ${planned} bytes when the socket closed`);
  await assert.rejects(gw.read('Patient', 'declared'), { code: 'ERR_RESPONSE_TOO_LARGE' });
  assert.equal(srv.seen.length, 2, 'neither is retried');
});

test('an upstream that never answers: ERR_TIMEOUT after the configured time-out, not retried', async (t) => {
  const srv = await startServer(t, () => undefined);
  const { gw } = gateway(t, { timeoutSeconds: 0.3 });
  gw.addSource('s', plain(srv));
  const started = Date.now();
  await assert.rejects(gw.read('Patient', '1'), { code: 'ERR_TIMEOUT', message: /timed out/ });
  assert.ok(Date.now() - started < 15_000, 'a safety net, not a measurement');
  assert.equal(srv.seen.length, 1);
});

test('a redirect to another origin is not followed and no credentials reach that origin', async (t) => {
  const other = await startServer(t, (_req, res) => res.end(patient));
  const statuses = [301, 302, 303, 307, 308];
  let n = 0;
  const srv = await startServer(t, (req, res) => {
    if (req.url === '/token') {
      res.end(JSON.stringify({ access_token: 'tok-123', token_type: 'Bearer', expires_in: 3600 }));
      return;
    }
    res.writeHead(statuses[n++ % statuses.length] ?? 302, { location: `${other.url}/fhir/Patient/1` });
    res.end();
  });
  const { gw } = gateway(t);
  gw.addSource('s', withAuth(srv));
  for (const status of statuses) await assert.rejects(gw.read('Patient', '1'), { code: 'ERR_FHIR_HTTP', status });
  assert.equal(other.seen.length, 0);
  const fhir = srv.seen.filter((r) => r.url !== '/token');
  assert.equal(fhir.length, statuses.length);
  assert.ok(fhir.every((r) => r.headers.authorization === 'Bearer tok-123'), 'the token went to the source only');
});

test('an unresolvable host: ERR_NETWORK naming the host, and no retry', async (t) => {
  const { gw } = gateway(t, { timeoutSeconds: 20 });
  gw.addSource('nowhere', 'fhir://no-such-host.invalid/fhir/R4');
  const retried = retryMessages(t, new URL(gw.sourceBaseUrl('nowhere')).origin);
  await assert.rejects(gw.read('Patient', '1'), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ERR_NETWORK');
    assert.match(err.message, /no-such-host\.invalid/);
    assert.match(err.message, /ENOTFOUND|EAI_AGAIN/);
    return true;
  });
  assert.deepEqual(retried, []);
});
