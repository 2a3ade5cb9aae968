// W3C Trace Context on outgoing calls, as the upstream sees it: a library call outside any request is one
// trace of its own (its retry a new span of it), and a call a host request causes continues the caller's
// trace with a span of its own; the caller's tracestate goes with it; events name the same trace.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readTraceparent } from '../../src/lib/trace-context.js';
import { createServiceAPI } from '../../src/host/index.js';
import { gateway } from '../support/gateway-fixtures.js';
import { startServer } from '../support/test-server.js';
import { call } from '../support/host-helpers.js';

const patient = JSON.stringify({ resourceType: 'Patient', id: '1' });
const TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT = 'b7ad6b7169203331';

test('a library call outside a request is a trace of its own: each try a new span of it, the event naming it', async (t) => {
  const srv = await startServer(t, (_req, res) => {
    if (srv.seen.length === 1) {
      res.writeHead(503);
      res.end();
    } else res.end(patient);
  });
  const { gw, events } = gateway(t, { retryBaseDelayMs: 1, maxRetryDelayMs: 10 });
  gw.addSource('s', `fhir://${srv.url.slice(7)}/fhir`);
  await gw.read('Patient', '1');
  await gw.read('Patient', '1');
  const sent = srv.seen.map((s) => readTraceparent(s.headers.traceparent));
  assert.equal(sent.length, 3);
  assert.ok(sent.every((c) => c !== undefined), 'every try carries a valid traceparent');
  assert.equal(sent[0]!.traceId, sent[1]!.traceId, 'a retry stays in its call');
  assert.notEqual(sent[0]!.spanId, sent[1]!.spanId, 'a retry is a span of its own');
  assert.notEqual(sent[2]!.traceId, sent[0]!.traceId, 'another call, another trace');
  const reads = events.filter(([name]) => name === 'fhir.patient.read').map(([, p]) => p.trace_id);
  assert.deepEqual(reads, [sent[0]!.traceId, sent[2]!.traceId]);
});

test("a call a host request causes continues the caller's trace, with the tracestate, as a span of its own", async (t) => {
  const srv = await startServer(t, (_req, res) => res.end(patient));
  const { gw } = gateway(t);
  gw.addSource('s', `fhir://${srv.url.slice(7)}/fhir`);
  const app = createServiceAPI({ logger: { debug() {}, info() {}, warn() {}, error() {} } });
  app.get('/p', async (ctx) => ({ host: ctx.trace.spanId, patient: await gw.read('Patient', '1') }));
  const server = await app.listen(0, '127.0.0.1');
  t.after(() => app.close());
  const { port } = server.address() as { port: number };
  const answer = await call(`http://127.0.0.1:${port}`, '/p', { headers: { traceparent: `00-${TRACE}-${PARENT}-01`, tracestate: 'vendor=abc' } });
  assert.equal(answer.status, 200);
  const upstream = readTraceparent(srv.seen[0]?.headers.traceparent, srv.seen[0]?.headers.tracestate);
  assert.equal(upstream?.traceId, TRACE);
  assert.equal(upstream?.flags, 1);
  assert.equal(upstream?.state, 'vendor=abc');
  const { host } = answer.json() as { host: string };
  assert.ok(upstream !== undefined && upstream.spanId !== PARENT && upstream.spanId !== host, 'the upstream call is a span of its own');
});
