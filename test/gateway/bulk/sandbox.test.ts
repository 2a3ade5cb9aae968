/** Bulk Data export through AsyncFHIRGateway against the sandbox's $export, status and file endpoints. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BulkItem } from '../../../src/gateway/index.js';
import { startServer } from '../../support/test-server.js';
import { sandbox } from '../../support/sandbox.js';
import { gateway, settle } from '../../support/gateway-fixtures.js';

async function collect(items: AsyncIterable<BulkItem>): Promise<BulkItem[]> {
  const all: BulkItem[] = [];
  for await (const item of items) all.push(item);
  return all;
}

const countBy = (items: readonly BulkItem[], key: (i: BulkItem) => string): Record<string, number> =>
  items.reduce<Record<string, number>>((acc, i) => ({ ...acc, [key(i)]: (acc[key(i)] ?? 0) + 1 }), {});

test('a system export yields every resource of the asked types with its type, source and file, as a search finds them', async (t) => {
  const sb = await sandbox(t, { exportPolls: 2, exportRetryAfterSeconds: 0 });
  const { gw, events } = gateway(t);
  gw.addSource('sb', sb.connectionString());
  const items = await collect(gw.bulkExport('sb', { types: ['Patient', 'Condition'], pollIntervalSeconds: 0.1 }));
  const patients = await gw.search('Patient', { _count: 100 }, 'sb');
  const conditions = await gw.search('Condition', { _count: 100 }, 'sb');
  assert.deepEqual(countBy(items, (i) => i.type), { Patient: patients.total, Condition: conditions.total });
  assert.deepEqual(
    new Set(items.filter((i) => i.type === 'Patient').map((i) => i.resource.id)),
    new Set(patients.entry?.map((e) => e.resource?.id)),
  );
  for (const item of items) {
    assert.equal(item.kind, 'output');
    assert.equal(item.source, 'sb');
    assert.equal(item.resource.resourceType, item.type);
    assert.match(item.url, new RegExp(`^${sb.fhirBase.replace(/[.$]/g, '\\$&')}/\\$export-file/[0-9a-f-]+/${item.type}\\.ndjson$`));
  }
  await settle();
  const bulk = events.filter(([name]) => name.startsWith('fhir.bulk.'));
  assert.deepEqual(bulk.map(([name]) => name), ['fhir.bulk.kickoff', 'fhir.bulk.progress', 'fhir.bulk.progress', 'fhir.bulk.complete']);
  assert.deepEqual(bulk[0]?.[1], { source: 'sb', operation: 'export', level: '$export', types: 'Patient,Condition', since: undefined });
  assert.deepEqual(bulk.slice(1, 3).map(([, p]) => p.progress), ['in progress: step 1 of 3', 'in progress: step 2 of 3']);
  const complete = bulk[3]?.[1] ?? {};
  assert.equal(complete.file_count, 2);
  assert.equal(complete.resource_count, items.length);
  assert.equal(complete.error_count, 0);
  assert.ok(typeof complete.bytes === 'number' && complete.bytes > 0);
  for (const [, payload] of bulk) {
    assert.ok(Object.values(payload).every((v) => v === undefined || v === null || typeof v !== 'object'), 'flat payloads, no resource');
  }
  // The finished job was deleted: kick-off, 3 status requests, 2 files, one DELETE (plus the token and 2 searches).
  assert.equal(sb.stats.requests.byMethod.DELETE, 1);
});

test('patient and group level export only the patients asked for, and _since only what changed after it', async (t) => {
  const sb = await sandbox(t, { exportPolls: 0 });
  const { gw } = gateway(t);
  gw.addSource('sb', sb.connectionString());
  // `_since` splits at a millisecond: wait for the clock to pass the last write before it.
  const marker = await gw.create({ resourceType: 'Patient', name: [{ family: 'Old' }] }, 'sb');
  const before = await nextMillisecond(Date.parse(marker.meta?.lastUpdated as string));
  await nextMillisecond(before.getTime());
  const fresh = await gw.create({ resourceType: 'Patient', name: [{ family: 'Fresh' }] }, 'sb');
  await gw.create({ resourceType: 'Observation', status: 'final', code: { text: 'pulse' }, subject: { reference: `Patient/${fresh.id}` } }, 'sb');
  const group = await gw.create({ resourceType: 'Group', type: 'person', actual: true, member: [{ entity: { reference: `Patient/${fresh.id}` } }] }, 'sb');

  const inGroup = await collect(gw.bulkExport('sb', { level: { group: group.id as string }, types: ['Patient', 'Observation'] }));
  assert.deepEqual(inGroup.map((i) => `${i.type}:${i.type === 'Patient' ? i.resource.id : (i.resource as { subject?: { reference?: string } }).subject?.reference}`).sort(), [
    `Observation:Patient/${fresh.id}`,
    `Patient:${fresh.id}`,
  ]);
  const allPatients = await collect(gw.bulkExport('sb', { level: 'patient', types: ['Patient'] }));
  assert.equal(allPatients.length, (await gw.search('Patient', {}, 'sb')).total);
  const since = await collect(gw.bulkExport('sb', { since: before }));
  assert.deepEqual(since.map((i) => i.type).sort(), ['Group', 'Observation', 'Patient']);
  assert.equal((await collect(gw.bulkExport('sb', { since: new Date(Date.now() + 60_000) }))).length, 0);
});

test('aborting while the job runs rejects ERR_ABORTED and cancels the job with DELETE', async (t) => {
  const sb = await sandbox(t, { exportPolls: 1000, exportRetryAfterSeconds: 1 });
  const { gw } = gateway(t);
  gw.addSource('sb', sb.connectionString());
  const controller = new AbortController();
  const next = gw.bulkExport('sb', { signal: controller.signal }).next();
  // Abort once the sandbox has seen the kick-off and one status request.
  await waitFor(() => (sb.stats.requests.byKind.other ?? 0) >= 2);
  controller.abort();
  await assert.rejects(next, { code: 'ERR_ABORTED' });
  assert.equal(sb.stats.requests.byMethod.DELETE, 1);
  const afterwards = await fetch(`${sb.fhirBase}/$export-status/none`, { method: 'GET' });
  assert.equal(afterwards.status, 401);
});

test('a job that would outlive the deadline fails ERR_TIMEOUT without waiting, and is deleted', async (t) => {
  const sb = await sandbox(t, { exportPolls: 1000, exportRetryAfterSeconds: 60 });
  const { gw } = gateway(t);
  gw.addSource('sb', sb.connectionString());
  await assert.rejects(gw.bulkExport('sb', { deadlineSeconds: 30 }).next(), { code: 'ERR_TIMEOUT', message: /cannot finish within its deadline of 30 s: the status request answered 202 with Retry-After: 60, a wait of 60 s/ });
  assert.equal(sb.stats.requests.byMethod.DELETE, 1);
});

test('bulkExportAll runs two sources at once and tags every resource with its source', async (t) => {
  const a = await sandbox(t, { seed: 'a', exportRetryAfterSeconds: 0 });
  const b = await sandbox(t, { seed: 'b', exportRetryAfterSeconds: 0 });
  const { gw } = gateway(t);
  gw.addSource('a', a.connectionString());
  gw.addSource('b', b.connectionString());
  const items = await collect(gw.bulkExportAll(undefined, { types: ['Patient'] }));
  const expected = { a: (await gw.search('Patient', {}, 'a')).total, b: (await gw.search('Patient', {}, 'b')).total };
  assert.deepEqual(countBy(items, (i) => i.source), expected);
  const ids = (s: string): string[] => items.filter((i) => i.source === s).map((i) => i.resource.id as string).sort();
  assert.notDeepEqual(ids('a'), ids('b'));
  assert.equal(a.stats.requests.byMethod.DELETE, 1);
  assert.equal(b.stats.requests.byMethod.DELETE, 1);
});

test('bulkExportAll runs the sources in parallel, at most `concurrency` at once', async (t) => {
  const slow = await sandbox(t, { exportPolls: 1000, exportRetryAfterSeconds: 1 });
  const fast = await sandbox(t, { exportPolls: 0 });
  const { gw } = gateway(t);
  gw.addSource('slow', slow.connectionString());
  gw.addSource('fast', fast.connectionString());
  // Both at once: the fast source's resources come while the slow job still runs.
  for await (const item of gw.bulkExportAll(['slow', 'fast'], { types: ['Patient'] })) {
    assert.equal(item.source, 'fast');
    await waitFor(() => (slow.stats.requests.byKind.other ?? 0) >= 2); // the slow job is running
    break;
  }
  assert.equal(slow.stats.requests.byMethod.DELETE, 1, 'leaving the loop cancelled the slow job');
  // One at a time: the second source is not even kicked off while the first runs.
  const controller = new AbortController();
  const seen = slow.stats.requests.byKind.other ?? 0;
  const next = gw.bulkExportAll(['slow', 'fast'], { concurrency: 1, signal: controller.signal }).next();
  // Abort once the slow source saw the second kick-off and a status request (its job is running).
  await waitFor(() => (slow.stats.requests.byKind.other ?? 0) >= seen + 2);
  controller.abort();
  await assert.rejects(next, { code: 'ERR_ABORTED', message: /^source "slow": / });
  assert.equal(fast.stats.requests.byKind.other, 4, 'fast saw only the first export: kick-off, status, file, DELETE');
  assert.equal(slow.stats.requests.byMethod.DELETE, 2);
});

test('bulkExportAll: one failing source stops the others, which are cancelled, and its error names it', async (t) => {
  const slow = await sandbox(t, { exportPolls: 1000, exportRetryAfterSeconds: 1 });
  // The other source refuses its kick-off, but only once the slow one's job is running.
  const bad = await startServer(t, (_req, res) => {
    void waitFor(() => (slow.stats.requests.byKind.other ?? 0) >= 2).then(() => {
      res.writeHead(403, { 'content-type': 'application/fhir+json' });
      res.end(JSON.stringify({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'forbidden', diagnostics: 'no export for you' }] }));
    });
  });
  const { gw } = gateway(t);
  gw.addSource('slow', slow.connectionString());
  gw.addSource('bad', `fhir://${bad.url.slice('http://'.length)}/fhir`);
  await assert.rejects(collect(gw.bulkExportAll(['slow', 'bad'])), {
    code: 'ERR_FHIR_HTTP',
    status: 403,
    message: /^source "bad": bulk export kick-off \$export failed: 403 Forbidden: no export for you$/,
  });
  assert.equal(slow.stats.requests.byMethod.DELETE, 1, 'the running job of the other source was cancelled');
});

test('bad options throw at once, naming the option; an unknown source or a refused kick-off rejects with a code', async (t) => {
  const sb = await sandbox(t);
  const { gw } = gateway(t);
  gw.addSource('sb', sb.connectionString());
  const bad: [object, RegExp][] = [
    [{ level: 'group' }, /options\.level/],
    [{ level: { group: 'a/b' } }, /options\.level/],
    [{ types: ['Patient', 'Nope'] }, /options\.types/],
    [{ since: 'yesterday' }, /options\.since/],
    [{ typeFilter: ['category=lab'] }, /options\.typeFilter/],
    [{ fileOrigins: ['https://files.example.org/path'] }, /options\.fileOrigins/],
    [{ deadlineSeconds: -1 }, /options\.deadlineSeconds/],
    [{ pollIntervalSeconds: Infinity }, /options\.pollIntervalSeconds/],
    [{ maxPollErrors: 1.5 }, /options\.maxPollErrors/],
    [{ deleteJob: 'no' }, /options\.deleteJob/],
    [{ signal: 'stop' }, /options\.signal/],
  ];
  for (const [options, message] of bad) assert.throws(() => gw.bulkExport('sb', options as never), { message }, JSON.stringify(options));
  assert.throws(() => gw.bulkExportAll([], {}), TypeError);
  assert.throws(() => gw.bulkExportAll(['sb'], { concurrency: 0 }), RangeError);
  await assert.rejects(gw.bulkExport('nope').next(), { code: 'ERR_UNKNOWN_SOURCE' });
  await assert.rejects(gw.bulkExport('sb', { typeFilter: ['Observation?code=1234'] }).next(), { code: 'ERR_FHIR_HTTP', status: 400, message: /_typeFilter is not supported/ });
  await assert.rejects(gw.bulkExport('sb', { level: { group: 'missing' } }).next(), { code: 'ERR_FHIR_HTTP', status: 404 });
  assert.equal(sb.stats.requests.byMethod.DELETE ?? 0, 0, 'no job was started, none deleted');
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !condition(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(condition(), 'condition never held');
}

/** A Date strictly after `ms`, waiting for the clock to get there (a millisecond or two). */
async function nextMillisecond(ms: number): Promise<Date> {
  while (Date.now() <= ms) await new Promise((r) => setImmediate(r));
  return new Date();
}
