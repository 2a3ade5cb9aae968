import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { freePort } from '../../support/free-port.js';
import { startServer } from '../../support/test-server.js';
import { sandbox } from '../../support/sandbox.js';
import { gateway } from '../../support/gateway-fixtures.js';

test('token endpoint answering 503: ERR_AUTH_TOKEN with the status; once it is back the next call succeeds', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t);
  gw.addSource('s', s.connectionString());
  s.faults.failNext(1, 503, { target: 'token' });
  await assert.rejects(gw.read('Patient', 'a-patient-1'), (err: Error & { code?: string; status?: number }) => {
    assert.equal(err.code, 'ERR_AUTH_TOKEN');
    assert.equal(err.status, 503);
    assert.match(err.message, /^token request to http:\/\/127\.0\.0\.1:\d+\/oauth2\/token failed: 503/);
    return true;
  });
  assert.equal(s.stats.requests.byKind.read ?? 0, 0, 'no FHIR request without a token');
  assert.equal((await gw.read('Patient', 'a-patient-1')).id, 'a-patient-1');
  assert.equal(s.stats.tokenRequests, 2);
  assert.equal(s.stats.tokensIssued, 1);
});

test('token endpoint down (connection refused): a clear ERR_AUTH_TOKEN; when it listens again, the next call succeeds', async (t) => {
  let issued = 0;
  const onToken = (_req: http.IncomingMessage, res: http.ServerResponse): void => {
    issued++;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ access_token: `tok-${issued}`, token_type: 'Bearer', expires_in: 3600 }));
  };
  const port = await freePort();
  const fhir = await startServer(t, (_req, res) => res.end(JSON.stringify({ resourceType: 'Patient', id: '1' })));
  const { gw } = gateway(t, { retryBaseDelayMs: 1, maxRetryDelayMs: 10 });
  gw.addSource('s', `fhir://${fhir.url.slice(7)}/fhir?client_id=app&client_secret=s3cret&token_url=${encodeURIComponent(`http://127.0.0.1:${port}/token`)}`);

  await assert.rejects(gw.read('Patient', '1'), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'ERR_AUTH_TOKEN');
    assert.equal(err.message, `token request to http://127.0.0.1:${port}/token failed: ERR_NETWORK (ECONNREFUSED)`);
    assert.ok(!err.message.includes('s3cret'));
    return true;
  });
  assert.equal(fhir.seen.length, 0);

  const back = http.createServer(onToken);
  await new Promise<void>((resolve, reject) => back.once('error', reject).listen(port, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => back.close(() => resolve())));
  assert.equal((await gw.read('Patient', '1')).id, '1');
  assert.equal(issued, 1);
  assert.equal(fhir.seen[0]?.headers.authorization, 'Bearer tok-1');
});

test('token endpoint that drops the connection: ERR_AUTH_TOKEN naming ERR_NETWORK, then recovery', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t);
  gw.addSource('s', s.connectionString());
  s.faults.dropNext(1, { target: 'token' });
  await assert.rejects(gw.read('Patient', 'a-patient-1'), { code: 'ERR_AUTH_TOKEN', message: /failed: ERR_NETWORK/ });
  assert.equal((await gw.read('Patient', 'a-patient-1')).id, 'a-patient-1');
});
