import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { CloudEventsDispatcher } from '../../src/events/index.js';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { createServiceAPI, type ServiceAPIOptions } from '../../src/host/index.js';
import { startEventSink } from '../support/event-sink.js';
import { sandbox as testSandbox } from '../support/sandbox.js';
import { startApp } from '../support/serve.js';
import diagnostics_channel from 'node:diagnostics_channel';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { HostMetrics } from '../../src/host/metrics.js';
import { parseExposition, seriesValue } from '../support/exposition.js';

/** A patient id that must never show up in a label. */
const PATIENT_ID = 'pt-7c1f93a0e5';
/** One line of the text format 0.0.4: a comment, or `name{labels} value`. */
const LINE = /^(# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+|[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\.)*",?)*\})? (-?[0-9.e+-]+|\+Inf|-Inf|NaN))$/;

async function start(t: TestContext, options: ServiceAPIOptions, secret = 'demo-secret') {
  const sandbox = await testSandbox(t, { clients: [{ clientId: 'app', clientSecret: 'demo-secret' }], seed: [{ resourceType: 'Patient', id: PATIENT_ID }] });
  const gw = new AsyncFHIRGateway({ retry: false });
  gw.addSource('ehr', sandbox.connectionString('app').replace('client_secret=demo-secret', `client_secret=${secret}`));
  gw.transform('Patient', async (id, source) => ({ ...(await gw.read('Patient', id, source)), active: true }));
  const { base } = await startApp(t, options, (app) => app.registerGateway(gw));
  return base;
}

async function scrape(base: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string | null; text: string }> {
  const r = await fetch(`${base}/metrics`, { headers });
  return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
}

test('/metrics is off by default', async (t) => {
  const base = await start(t, {});
  assert.equal((await scrape(base)).status, 404);
});

test('/metrics: requests by route template and status, latency histogram, upstream calls by source, pool, tokens; no id in any label', async (t) => {
  const base = await start(t, { metrics: true });
  for (let i = 0; i < 3; i++) assert.equal((await fetch(`${base}/fhir/transform/Patient/${PATIENT_ID}`)).status, 200);
  assert.equal((await fetch(`${base}/fhir/transform/Patient/${PATIENT_ID}x`)).status, 404);
  assert.equal((await fetch(`${base}/no/such/${PATIENT_ID}`)).status, 404);
  const { status, type, text } = await scrape(base);
  assert.equal(status, 200);
  assert.equal(type, 'text/plain; version=0.0.4; charset=utf-8');
  assert.ok(!text.includes(PATIENT_ID), 'no patient id anywhere in the metrics');
  for (const line of text.trimEnd().split('\n')) assert.match(line, LINE);
  const route = '/fhir/transform/:type/:id';
  const transform = text.split('\n').filter((l) => l.startsWith('fhirgate_http_requests_total{') && l.includes(`route="${route}"`));
  assert.ok(transform.length > 0, text);
  assert.ok(transform.includes(`fhirgate_http_requests_total{method="GET",route="${route}",status="200"} 3`), transform.join('\n'));
  assert.ok(transform.includes(`fhirgate_http_requests_total{method="GET",route="${route}",status="404"} 1`), transform.join('\n'));
  assert.ok(text.includes('fhirgate_http_requests_total{method="GET",route="unmatched",status="404"} 1'));
  assert.ok(text.includes(`fhirgate_http_request_duration_seconds_bucket{route="${route}",le="+Inf"} 4`));
  assert.ok(text.includes(`fhirgate_http_request_duration_seconds_count{route="${route}"} 4`));
  assert.ok(text.includes('# TYPE fhirgate_http_request_duration_seconds histogram'));
  assert.ok(text.includes('fhirgate_upstream_requests_total{source="ehr",method="GET",status="200"} 3'), text);
  assert.ok(text.includes('fhirgate_upstream_requests_total{source="ehr",method="GET",status="404"} 1'), text);
  assert.ok(text.includes('fhirgate_upstream_requests_total{source="ehr",method="POST",status="200"} 1'), 'the token request');
  assert.match(text, /fhirgate_pool_connections\{gateway="AsyncFHIRGateway",source="ehr",state="in_use"\} 0/);
  assert.match(text, /fhirgate_pool_connections\{gateway="AsyncFHIRGateway",source="ehr",state="idle"\} [1-9]/);
  assert.match(text, /fhirgate_pool_connections\{gateway="AsyncFHIRGateway",source="ehr",state="queued"\} 0/);
  assert.ok(text.includes('fhirgate_token_fetches_total{source="ehr"} 1\n'));
  assert.ok(text.includes('fhirgate_token_failures_total{source="ehr"} 0\n'));
  assert.ok(!text.includes('fhirgate_events_total'), 'the local dispatcher keeps no delivery counts');
});

test('/metrics counts token failures', async (t) => {
  const base = await start(t, { metrics: true }, 'wrong-secret');
  assert.equal((await fetch(`${base}/fhir/transform/Patient/${PATIENT_ID}`)).status >= 400, true);
  const { text } = await scrape(base);
  assert.ok(text.includes('fhirgate_token_fetches_total{source="ehr"} 1\n'), text);
  assert.ok(text.includes('fhirgate_token_failures_total{source="ehr"} 1\n'), text);
  assert.ok(!text.includes('wrong-secret'));
});

test('/metrics shows events sent and dropped from the dispatcher', async (t) => {
  const sink = await startEventSink(t);
  const dispatcher = new CloudEventsDispatcher({ url: sink.url, source: 'urn:x' });
  t.after(() => dispatcher.close());
  const base = await start(t, { metrics: true, dispatcher });
  assert.equal((await fetch(`${base}/fhir/transform/Patient/${PATIENT_ID}`)).status, 200);
  await dispatcher.drain();
  const { text } = await scrape(base);
  const sent = dispatcher.status().sent;
  assert.ok(sent >= 2, 'read and transform events');
  assert.ok(text.includes(`fhirgate_events_total{outcome="sent"} ${sent}\n`), text);
  assert.ok(text.includes('fhirgate_events_total{outcome="dropped"} 0\n'));
  assert.ok(text.includes('fhirgate_events_queued 0\n'));
});

test('/metrics needs the API key when keys are set, unless it is made public', async (t) => {
  const base = await start(t, { metrics: true, apiKeys: ['k-123'] });
  assert.equal((await scrape(base)).status, 401);
  assert.equal((await scrape(base, { 'x-api-key': 'k-123' })).status, 200);
  const open = await start(t, { metrics: true, apiKeys: ['k-123'], publicPaths: ['/health', '/metrics'] });
  assert.equal((await scrape(open)).status, 200);
});

test('/metrics passes the strict exposition check, with the process metrics of this process', async (t) => {
  const base = await start(t, { metrics: true });
  assert.equal((await fetch(`${base}/fhir/transform/Patient/${PATIENT_ID}`)).status, 200);
  const families = parseExposition((await scrape(base)).text);
  assert.ok(seriesValue(families, 'process_resident_memory_bytes') > 10 * 1024 * 1024);
  assert.ok(seriesValue(families, 'nodejs_heap_size_used_bytes') > 0);
  assert.ok(seriesValue(families, 'nodejs_heap_size_total_bytes') >= seriesValue(families, 'nodejs_heap_size_used_bytes'));
  assert.ok(seriesValue(families, 'process_cpu_user_seconds_total') > 0);
  assert.ok(seriesValue(families, 'process_open_fds') > 0);
  assert.ok(families.get('nodejs_active_resources')!.series.length > 0);
  for (const name of ['nodejs_eventloop_lag_mean_seconds', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_eventloop_lag_max_seconds', 'nodejs_gc_duration_seconds']) assert.ok(families.has(name), name);
});

test('/metrics counts a request refused for want of an API key under its route, not unmatched', async (t) => {
  const base = await start(t, { metrics: true, apiKeys: ['k-123'] });
  assert.equal((await fetch(`${base}/fhir/transform/Patient/${PATIENT_ID}`)).status, 401);
  const families = parseExposition((await scrape(base, { 'x-api-key': 'k-123' })).text);
  assert.equal(seriesValue(families, 'fhirgate_http_requests_total', { route: '/fhir/transform/:type/:id', status: '401' }), 1);
  assert.equal(seriesValue(families, 'fhirgate_http_requests_total', { route: 'unmatched' }), 0);
});

test('upstream origins no source names are folded into "other" when counted: 100,000 new origins keep no memory', () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const gateways = [{ name: 'AsyncFHIRGateway', status: { connection_pool: { sources: { ehr: { origin: 'https://ehr.example.org' } } } } }];
  const metrics = new HostMetrics({ gateways: () => gateways, events: () => undefined });
  const channel = diagnostics_channel.channel('fhirgate:request:end');
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < 100_000; i++) channel.publish({ method: 'GET', origin: `https://prefetch-${i}.cds-caller.example.org:8443`, status: 200 });
  gc();
  const grown = process.memoryUsage().heapUsed - before;
  channel.publish({ method: 'GET', origin: 'https://ehr.example.org', status: 200 });
  const upstream = metrics.collect().find((f) => f.name === 'fhirgate_upstream_requests_total')!;
  metrics.close();
  // Kept per origin, 100,000 origins hold over 10 MB (about 150 B each).
  assert.ok(grown < 2 * 1024 * 1024, `the heap grew by ${grown} bytes`);
  assert.deepEqual(upstream.samples, [
    { labels: { source: 'other', method: 'GET', status: '200' }, value: 100_000 },
    { labels: { source: 'ehr', method: 'GET', status: '200' }, value: 1 },
  ]);
});

test('options.metrics must be a boolean', () => {
  assert.throws(() => createServiceAPI({ metrics: 'yes' as never }), { name: 'TypeError', message: /options\.metrics must be a boolean/ });
});
