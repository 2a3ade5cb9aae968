// A caller that goes away cancels the facade's upstream call (the upstream sees its request cut), and is
// audited as a failed access; requests that follow on a keep-alive connection are not cancelled.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { test } from 'node:test';
import { facadeHarness } from '../support/facade-harness.js';
import { until } from '../support/test-server.js';

const KEY = 'gone-caller-key-0123456789';
const PATIENT = '{"resourceType":"Patient","id":"quick","meta":{"versionId":"3"}}';

test('a caller that disconnects cuts the upstream call, is audited, and a kept-alive connection is not cut between reads', async (t) => {
  const upstream = { held: 0, cut: 0, answered: 0 };
  const server = createServer((req, res) => {
    if (req.url?.endsWith('/Patient/slow') === true) {
      upstream.held++;
      res.on('close', () => upstream.cut++);
      return;
    }
    upstream.answered++;
    res.writeHead(200, { 'content-type': 'application/fhir+json' }).end(PATIENT);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  const h = await facadeHarness(t, { ehr: `fhir://127.0.0.1:${(server.address() as AddressInfo).port}/fhir/` }, { callers: [{ name: 'gone', apiKey: KEY, sources: ['ehr'], scopes: 'system/Patient.rs' }] }, [KEY]);
  const url = new URL(h.prefix);
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => {});
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  const get = (id: string) => socket.write(`GET /fhir/ehr/Patient/${id} HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEY}\r\n\r\n`);

  get('quick');
  await until(() => received.split(PATIENT).length === 2, 'the first read');
  get('quick');
  await until(() => received.split(PATIENT).length === 3, 'a second read on the same connection');
  assert.equal(upstream.answered, 2);
  get('slow');
  await until(() => upstream.held === 1, 'the upstream holding the slow read');
  socket.destroy();
  await until(() => upstream.cut === 1, 'the upstream call cut when the caller went away');
  await until(() => h.audits.some((e) => e.outcome === '8'), 'the failed access audited');
  const failed = h.audits.find((e) => e.outcome === '8')!;
  assert.deepEqual(failed.subtype.map((c: { code: string }) => c.code), ['read']);
  assert.match(failed.outcomeDesc, /ERR_ABORTED/);
});
