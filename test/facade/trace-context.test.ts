// One federated search with a traceparent, followed end to end: both upstreams receive the caller's trace
// (each call a span of its own), the answer names it in X-Trace-ID, and the AuditEvent records the facade's
// traceparent as a BALP Traceparent entity, with its trace id in the fhir.audit payload.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readTraceparent } from '../../src/lib/trace-context.js';
import { facadeHarness } from '../support/facade-harness.js';
import { startServer } from '../support/test-server.js';

const KEY = 'trace-key-0123456789abcdef';
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

function upstream(t: Parameters<typeof startServer>[0], id: string) {
  return startServer(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/fhir+json' });
    res.end(JSON.stringify({ resourceType: 'Bundle', type: 'searchset', total: 1, entry: [{ resource: { resourceType: 'Observation', id, status: 'final', code: { text: 'x' } } }] }));
  });
}

test('a federated search carries the caller\'s trace to every source, into X-Trace-ID and into its AuditEvent', async (t) => {
  const ehr = await upstream(t, 'e1');
  const lab = await upstream(t, 'l1');
  const h = await facadeHarness(t, { ehr: `fhir://${ehr.url.slice(7)}/fhir/`, lab: `fhir://${lab.url.slice(7)}/fhir/` }, { callers: [{ name: 'tracer', apiKey: KEY, sources: '*', scopes: 'system/*.rs' }] }, [KEY]);
  const res = await fetch(`${h.prefix}/all/Observation`, { headers: { 'x-api-key': KEY, traceparent: `00-${TRACE}-${PARENT}-01`, tracestate: 'hospital=ward7' } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-trace-id'), TRACE);
  const bundle = (await res.json()) as { entry: unknown[] };
  assert.equal(bundle.entry.length, 2);
  const sent = [...ehr.seen, ...lab.seen].map((s) => readTraceparent(s.headers.traceparent, s.headers.tracestate));
  assert.equal(sent.length, 2);
  for (const context of sent) {
    assert.equal(context?.traceId, TRACE, 'each source got the caller\'s trace');
    assert.equal(context?.state, 'hospital=ward7');
    assert.notEqual(context?.spanId, PARENT);
  }
  assert.notEqual(sent[0]?.spanId, sent[1]?.spanId, 'each source call is a span of its own');
  await new Promise((resolve) => setTimeout(resolve, 50));
  const audits = h.audits.filter((e) => e.entity.some((x: any) => x.type.code === 'Traceparent'));
  assert.ok(audits.length >= 1, JSON.stringify(h.audits));
  for (const event of audits) {
    const traceparent = event.entity.find((x: any) => x.type.code === 'Traceparent').what.identifier.value as string;
    const context = readTraceparent(traceparent);
    assert.equal(context?.traceId, TRACE);
    assert.notEqual(context?.spanId, PARENT, "the facade's own span, as the responder records it");
    assert.equal(event.entity.find((x: any) => x.type.code === 'Traceparent').type.system, 'https://profiles.ihe.net/ITI/BALP/CodeSystem/BasicAuditEntityType');
  }
});
