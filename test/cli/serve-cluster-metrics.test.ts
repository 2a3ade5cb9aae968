/** `fhirgate serve --workers 2 --metrics` as real processes: one view of the whole cluster at every scrape. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseExposition, seriesValue } from '../support/exposition.js';
import { runMixedLoad } from '../support/load-client.js';
import { serveSandboxWorkers, waitForLines } from '../support/run-cli.js';

test('serve --workers 2 --metrics: every scrape under load shows the whole cluster; no counter goes down; totals equal the requests answered, also across a rolling restart', async (t) => {
  const { run, origin } = await serveSandboxWorkers(t, 2, ['--metrics']);
  const scrape = async () => parseExposition(await (await fetch(`${origin}/metrics`, { headers: { connection: 'close' } })).text());
  const root = (families: Awaited<ReturnType<typeof scrape>>) => seriesValue(families, 'fhirgate_http_requests_total', { route: '/', status: '200' });
  /** Every series of every fhirgate counter (and histogram count), by its name and labels. */
  const counters = (families: Awaited<ReturnType<typeof scrape>>) =>
    new Map([...families].filter(([name, f]) => name.startsWith('fhirgate_') && f.type !== 'gauge').flatMap(([, f]) => f.series.map((s) => [`${s.name}${JSON.stringify(s.labels)}`, s.value] as const)));
  const stop = new AbortController();
  const load = runMixedLoad(`${origin}/`, stop.signal);
  let previous = new Map<string, number>();
  for (let i = 0; i < 10; i += 1) {
    const now = counters(await scrape());
    for (const [series, value] of previous) assert.ok((now.get(series) ?? 0) >= value, `scrape ${i}: ${series} went from ${value} to ${now.get(series)}`);
    previous = now;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  stop.abort();
  const sent = (await load).reduce((n, [, counts]) => n + (counts.status['200'] ?? 0), 0);
  assert.ok(sent > 0);
  const families = await scrape();
  assert.equal(root(families), sent, 'the cluster\'s total is every answer the clients got, whichever worker answered the scrape');
  const workers = new Set(families.get('process_resident_memory_bytes')!.series.map((s) => s.labels['worker']));
  assert.deepEqual([...workers].sort(), (JSON.parse(run.stdout().split('\n').find((l) => l.includes('"msg":"serving"'))!) as { workers: number[] }).workers.map(String).sort(), 'one series per worker, labelled with its pid');
  assert.ok(families.get('fhirgate_pool_connections')!.series.every((s) => s.labels['worker'] !== undefined), 'gauges per worker');
  assert.ok(seriesValue(families, 'fhirgate_http_requests_total', { route: '/metrics' }) >= 10, 'scrapes are counted too');
  run.child.kill('SIGHUP');
  await waitForLines(run, 'rolling restart done', 1);
  assert.equal(root(await scrape()), sent, 'the retired workers\' counts stay in the total');
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});

test('serve --workers 2 --metrics: the upstream latency histogram of every worker is summed bucket by bucket, one series per source and interaction', async (t) => {
  const { origin } = await serveSandboxWorkers(t, 2, ['--metrics']);
  const scrape = async () => parseExposition(await (await fetch(`${origin}/metrics`, { headers: { connection: 'close' } })).text());
  const reads = 12;
  for (let i = 0; i < reads; i++) {
    const res = await fetch(`${origin}/fhir/a/Patient/a-patient-1`, { headers: { connection: 'close' } });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
  }
  const families = await scrape();
  const histogram = families.get('fhirgate_upstream_request_duration_seconds')!;
  const read = histogram.series.filter((s) => s.labels['source'] === 'a' && s.labels['interaction'] === 'read');
  assert.ok(read.every((s) => s.labels['worker'] === undefined), 'summed over the workers, not per worker');
  assert.equal(read.find((s) => s.name.endsWith('_count'))?.value, reads, 'every read, whichever worker made it');
  assert.equal(read.find((s) => s.labels['le'] === '+Inf')?.value, reads);
  const buckets = read.filter((s) => s.name.endsWith('_bucket'));
  assert.equal(new Set(buckets.map((s) => s.labels['le'])).size, buckets.length, 'one series per bucket');
  assert.ok(seriesValue(families, 'fhirgate_token_fetches_total', { source: 'a' }) >= 1, 'token fetches per source, summed');
});
