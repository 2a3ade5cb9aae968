// `fhirgate serve` (the real process) with the OpenTelemetry SDK registered by `node --import` and
// `@opentelemetry/api` resolvable from its working directory: one federated search with a traceparent is
// followed end to end: both upstreams received the caller's trace id (each call its own client span's
// id, as the spans the process exported say), the log lines of the request name it, and the AuditEvent
// the audit source received records it.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { readTraceparent } from '../../src/lib/trace-context.js';
import { helperScript, LOADER } from '../support/code-tree.js';
import { ROOT, startNode, tempDir, waitServing } from '../support/run-cli.js';
import { startServer, until } from '../support/test-server.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT = 'b7ad6b7169203331';

/** A FHIR server that answers searches with one entry and batches with 201s, recording what it received. */
function upstream(t: Parameters<typeof startServer>[0], id: string) {
  return startServer(t, (req, res, body) => {
    res.writeHead(200, { 'content-type': 'application/fhir+json' });
    if (req.method === 'POST') {
      const entries = (JSON.parse(body) as { entry: unknown[] }).entry;
      res.end(JSON.stringify({ resourceType: 'Bundle', type: 'batch-response', entry: entries.map(() => ({ response: { status: '201 Created' } })) }));
    } else res.end(JSON.stringify({ resourceType: 'Bundle', type: 'searchset', total: 1, entry: [{ resource: { resourceType: 'Patient', id } }] }));
  });
}

/** A module for `node --import` that registers the SDK with an exporter writing each span as a JSON line to `spansFile`. */
function otelSetup(dir: string, spansFile: string): string {
  const resolve = createRequire(join(ROOT, 'package.json')).resolve;
  const api = pathToFileURL(resolve('@opentelemetry/api')).href;
  const sdk = pathToFileURL(resolve('@opentelemetry/sdk-trace-base')).href;
  const file = join(dir, 'otel.mjs');
  writeFileSync(file, [
    `import { appendFileSync } from 'node:fs';`,
    `import { trace } from '${api}';`,
    `import { BasicTracerProvider, SimpleSpanProcessor } from '${sdk}';`,
    `const exporter = {`,
    `  export(spans, done) {`,
    `    for (const s of spans) appendFileSync(${JSON.stringify(spansFile)}, JSON.stringify({ name: s.name, kind: s.kind, traceId: s.spanContext().traceId, spanId: s.spanContext().spanId, parent: s.parentSpanContext?.spanId, attributes: s.attributes }) + '\\n');`,
    `    done({ code: 0 });`,
    `  },`,
    `  shutdown: () => Promise.resolve(),`,
    `};`,
    `trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));`,
  ].join('\n'));
  return file;
}

interface ExportedSpan {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parent: string | undefined;
  attributes: Record<string, unknown>;
}

test('serve with the OpenTelemetry SDK: one federated search is one trace at both upstreams, in the logs, the AuditEvent and the spans', async (t) => {
  const ehr = await upstream(t, 'e1');
  const lab = await upstream(t, 'l1');
  const dir = tempDir(t);
  const spansFile = join(dir, 'spans.jsonl');
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({
    sources: { ehr: `fhir://${ehr.url.slice(7)}/fhir`, lab: `fhir://${lab.url.slice(7)}/fhir` },
    facade: { audit: { source: 'ehr', batchSize: 1 } },
  }));
  const run = startNode(t, [...LOADER, '--import', otelSetup(dir, spansFile), helperScript(import.meta.url, '../support/cli-entry'), 'serve', '--config', join(dir, 'fhirgate.json'), '--port', '0']);
  const serving = await waitServing(run);
  assert.match(run.stdout(), /"msg":"tracing: spans go to the OpenTelemetry SDK registered in this process"/);

  const res = await fetch(`${serving.gateway}/all/Patient`, { headers: { traceparent: `00-${TRACE}-${PARENT}-01` } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('x-trace-id'), TRACE);
  assert.equal(((await res.json()) as { entry: unknown[] }).entry.length, 2);

  // Both upstreams: the caller's trace, each call a span of its own.
  const searches = [...ehr.seen, ...lab.seen].filter((s) => s.method === 'GET');
  assert.equal(searches.length, 2);
  const sent = searches.map((s) => readTraceparent(s.headers.traceparent));
  assert.ok(sent.every((c) => c?.traceId === TRACE), JSON.stringify(sent));
  assert.notEqual(sent[0]!.spanId, sent[1]!.spanId);

  // The AuditEvent the audit source received records the trace (BALP Traceparent entity).
  await until(() => ehr.seen.some((s) => s.method === 'POST' && s.body.includes(TRACE)), 'an AuditEvent naming the trace at the audit source');
  const batch = JSON.parse(ehr.seen.find((s) => s.method === 'POST' && s.body.includes(TRACE))!.body) as { entry: { resource: { resourceType: string; entity: { type: { code: string }; what: { identifier: { value: string } } }[] } }[] };
  const audit = batch.entry.map((e) => e.resource).find((r) => r.entity.some((x) => x.type.code === 'Traceparent'));
  assert.equal(audit?.resourceType, 'AuditEvent');
  assert.equal(readTraceparent(audit.entity.find((x) => x.type.code === 'Traceparent')!.what.identifier.value)?.traceId, TRACE);

  // The log lines of the request name it.
  await until(() => run.stdout().includes('"msg":"request"'), 'the request log line');
  const lines = run.stdout().split('\n').filter((l) => l.includes('"msg":"request"')).map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(lines.length, 1, run.stdout());
  assert.ok(lines.every((l) => l.trace_id === TRACE), JSON.stringify(lines));

  // The spans the process exported: the server span, a span per source, and the client spans whose ids the upstreams received.
  await until(() => existsSync(spansFile) && readFileSync(spansFile, 'utf8').includes('"kind":1'), 'the server span');
  const spans = readFileSync(spansFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as ExportedSpan);
  const server = spans.find((s) => s.kind === 1 && s.traceId === TRACE);
  assert.equal(server?.parent, PARENT);
  const sources = spans.filter((s) => s.name === 'fhirgate.federated.source' && s.parent === server.spanId);
  assert.deepEqual(sources.map((s) => s.attributes['fhirgate.source']).sort(), ['ehr', 'lab']);
  for (const context of sent) {
    const client = spans.find((s) => s.spanId === context!.spanId);
    assert.equal(client?.kind, 2, 'the id an upstream received is a client span');
    assert.equal(client.traceId, TRACE);
    assert.ok(sources.some((s) => s.spanId === client.parent));
  }
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});
