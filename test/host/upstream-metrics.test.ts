// Issue 37 item 3: `/metrics` answers "which source is slow": upstream latency per source and FHIR
// interaction, statuses, token fetches and failures per source, pool waits, lost AuditEvents; bounded
// labels; and `promtool check metrics` accepts a real answer.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test, type TestContext } from 'node:test';
import { AuditSink } from '../../src/facade/audit-sink.js';
import { AsyncFHIRGateway, type AsyncFHIRGatewayOptions } from '../../src/gateway/index.js';
import { HostMetrics } from '../../src/host/metrics.js';
import { parseExposition, seriesValue, type ParsedFamily } from '../support/exposition.js';
import { sandbox } from '../support/sandbox.js';
import { startApp } from '../support/serve.js';
import { systemBinary } from '../support/system-binary.js';

/** A gateway with sources `a` and `b` (each its own sandbox, each with a token endpoint), mounted on a host with `/metrics`. */
async function twoSources(t: TestContext, options: AsyncFHIRGatewayOptions = {}) {
  const a = await sandbox(t, { seed: 'a' });
  const b = await sandbox(t, { seed: 'b' });
  const gw = new AsyncFHIRGateway({ retry: false, ...options });
  gw.addSource('a', a.connectionString());
  gw.addSource('b', b.connectionString());
  const { base } = await startApp(t, { metrics: true }, (app) => app.registerGateway(gw));
  const scrape = async (): Promise<{ text: string; families: Map<string, ParsedFamily> }> => {
    const text = await (await fetch(`${base}/metrics`)).text();
    return { text, families: parseExposition(text) };
  };
  return { a, b, gw, scrape };
}

const count = (families: Map<string, ParsedFamily>, source: string, interaction: string): number =>
  seriesValue(families, 'fhirgate_upstream_request_duration_seconds', { source, interaction }, 'fhirgate_upstream_request_duration_seconds_count');

/** The names and labels of every fhirgate series, one string each. */
const seriesOf = (families: Map<string, ParsedFamily>): string[] =>
  [...families].filter(([name]) => name.startsWith('fhirgate_')).flatMap(([, f]) => f.series.map((s) => `${s.name}${JSON.stringify(s.labels)}`)).sort();

test('promtool check metrics accepts /metrics after reads, searches, a failing source and token fetches', async (t) => {
  const promtool = systemBinary(t, 'promtool', 'prometheus');
  if (promtool === undefined) return;
  const { a, b, gw, scrape } = await twoSources(t);
  await gw.read('Patient', 'a-patient-1', 'a');
  await gw.search('Patient', {}, 'b');
  b.faults.failNext(1, 500);
  await assert.rejects(gw.read('Patient', 'a-patient-1', 'b'));
  a.faults.failNext(1, 503, { target: 'token' });
  gw.addSource('a', a.connectionString());
  await assert.rejects(gw.read('Patient', 'a-patient-1', 'a'));
  const { text, families } = await scrape();
  assert.ok(count(families, 'a', 'read') >= 1 && count(families, 'b', 'search') === 1, text);
  const checked = spawnSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8' });
  assert.equal(checked.status, 0, `promtool: ${checked.stdout}${checked.stderr}`);
  assert.equal(checked.stdout.trim(), '', 'no lint problem');
  assert.doesNotMatch(checked.stderr, /problem|error/i, checked.stderr);
});

test('N reads of source a grow a\'s read histogram by N, in its buckets too; b\'s stays; a 500 is counted under its status', async (t) => {
  const { b, gw, scrape } = await twoSources(t);
  await gw.read('Patient', 'a-patient-1', 'a');
  await gw.read('Patient', 'b-patient-1', 'b').catch(() => undefined);
  const before = (await scrape()).families;
  for (let i = 0; i < 7; i++) await gw.read('Patient', 'a-patient-1', 'a');
  b.faults.failNext(1, 500);
  await assert.rejects(gw.read('Patient', 'b-patient-1', 'b'), { status: 500 });
  const after = (await scrape()).families;
  assert.equal(count(after, 'a', 'read'), count(before, 'a', 'read') + 7);
  assert.equal(seriesValue(after, 'fhirgate_upstream_request_duration_seconds', { source: 'a', interaction: 'read', le: '+Inf' }, 'fhirgate_upstream_request_duration_seconds_bucket'), count(after, 'a', 'read'));
  assert.equal(seriesValue(after, 'fhirgate_upstream_request_duration_seconds', { source: 'a', interaction: 'read', le: '10' }, 'fhirgate_upstream_request_duration_seconds_bucket'), count(after, 'a', 'read'), 'every loopback read under 10 s');
  assert.ok(seriesValue(after, 'fhirgate_upstream_request_duration_seconds', { source: 'a', interaction: 'read' }, 'fhirgate_upstream_request_duration_seconds_sum') > 0);
  const buckets = after.get('fhirgate_upstream_request_duration_seconds')!.series.filter((s) => s.name.endsWith('_bucket') && s.labels['source'] === 'a' && s.labels['interaction'] === 'read').map((s) => s.labels['le']);
  assert.deepEqual(buckets, ['0.005', '0.01', '0.025', '0.05', '0.075', '0.1', '0.25', '0.5', '0.75', '1', '2.5', '5', '7.5', '10', '+Inf'], 'OpenTelemetry\'s http.client.request.duration buckets');
  assert.equal(count(after, 'b', 'read'), count(before, 'b', 'read') + 1, 'the failed read is b\'s');
  assert.equal(seriesValue(after, 'fhirgate_upstream_requests_total', { source: 'b', method: 'GET', status: '500' }), 1);
  await gw.search('Observation', { patient: 'a-patient-1' }, 'a');
  await gw.batch({ resourceType: 'Bundle', type: 'batch', entry: [] }, 'a');
  const later = (await scrape()).families;
  assert.equal(count(later, 'a', 'search'), 1);
  assert.equal(count(later, 'a', 'batch'), 1);
});

test('token fetches and failures are counted per source', async (t) => {
  const { a, gw, scrape } = await twoSources(t);
  await gw.read('Patient', 'a-patient-1', 'a');
  await gw.read('Patient', 'b-patient-1', 'b').catch(() => undefined);
  a.faults.failNext(1, 503, { target: 'token' });
  gw.addSource('a', a.connectionString());
  await assert.rejects(gw.read('Patient', 'a-patient-1', 'a'));
  const { families } = await scrape();
  assert.equal(seriesValue(families, 'fhirgate_token_fetches_total', { source: 'a' }), 2);
  assert.equal(seriesValue(families, 'fhirgate_token_failures_total', { source: 'a' }), 1);
  assert.equal(seriesValue(families, 'fhirgate_token_fetches_total', { source: 'b' }), 1);
  assert.equal(seriesValue(families, 'fhirgate_token_failures_total', { source: 'b' }), 0);
});

test('reading 1,000 distinct ids adds no series', async (t) => {
  const { gw, scrape } = await twoSources(t);
  const readMany = async (from: number, n: number) => {
    for (let i = from; i < from + n; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => gw.read('Patient', `no-such-${i + j}`, 'a').catch(() => undefined)));
    }
  };
  await gw.read('Patient', 'a-patient-1', 'a');
  await readMany(0, 50);
  await scrape();
  const before = await scrape();
  await readMany(50, 1000);
  const after = await scrape();
  assert.deepEqual(seriesOf(after.families), seriesOf(before.families));
  assert.equal(count(after.families, 'a', 'read'), count(before.families, 'a', 'read') + 1000, 'each read counted, under one series');
  assert.equal(seriesValue(after.families, 'fhirgate_upstream_requests_total', { source: 'a', method: 'GET', status: '404' }), 1050);
  assert.ok(!after.text.includes('no-such-'), 'no id in any label');
});

test('pool waits: counted with their wait time, only for the requests that waited for a socket', async (t) => {
  const { a, gw, scrape } = await twoSources(t, { maxConnections: 1 });
  await gw.read('Patient', 'a-patient-1', 'a');
  await gw.read('Patient', 'a-patient-1', 'a');
  const serial = await scrape();
  assert.equal(serial.families.get('fhirgate_pool_wait_duration_seconds')!.series.length, 0, 'no request waited');
  a.faults.latency(100);
  await Promise.all([1, 2, 3].map((n) => gw.read('Patient', `a-patient-${n}`, 'a')));
  const { families } = await scrape();
  assert.equal(seriesValue(families, 'fhirgate_pool_wait_duration_seconds', { source: 'a' }, 'fhirgate_pool_wait_duration_seconds_count'), 2, 'one socket: the second and third read waited');
  assert.ok(seriesValue(families, 'fhirgate_pool_wait_duration_seconds', { source: 'a' }, 'fhirgate_pool_wait_duration_seconds_sum') >= 0.1, 'the third waited for two answers of 100 ms');
  assert.equal(seriesValue(families, 'fhirgate_pool_wait_duration_seconds', { source: 'a', le: '0.005' }, 'fhirgate_pool_wait_duration_seconds_bucket'), 0);
});

test('AuditEvents the audit sink loses are counted by reason', async () => {
  const metrics = new HostMetrics({ gateways: () => [], events: () => undefined });
  const options = { source: 'audit', batchSize: 10, maxQueue: 2, flushIntervalMs: 60_000 };
  const full = new AuditSink(options, () => Promise.reject(new Error('down')));
  for (let i = 0; i < 3; i++) full.add({ resourceType: 'AuditEvent', id: `e${i}` });
  await full.close();
  const refused = new AuditSink(options, async (bundle) => ({ resourceType: 'Bundle', type: 'batch-response', entry: (bundle.entry ?? []).map((_, i) => ({ response: { status: i === 0 ? '201 Created' : '400 Bad Request' } })) }) as never);
  refused.add({ resourceType: 'AuditEvent' });
  refused.add({ resourceType: 'AuditEvent' });
  await refused.close();
  const lost = metrics.collect().find((f) => f.name === 'fhirgate_audit_events_lost_total')!;
  metrics.close();
  assert.deepEqual(lost.samples, [
    { labels: { reason: 'queue_full' }, value: 1 },
    { labels: { reason: 'failed' }, value: 2 },
    { labels: { reason: 'refused' }, value: 1 },
  ]);
  assert.equal(full.status().lost + refused.status().lost, 4, 'the same as the sinks count');
});
