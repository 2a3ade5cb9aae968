/** Bulk Data export against a fault server: status errors, cut files, foreign origins, cancellation. */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { BulkItem } from '../../../src/gateway/index.js';
import { startServer, until } from '../../support/test-server.js';
import { gateway, settle } from '../../support/gateway-fixtures.js';
import { bulkServer, ndjson, OUTCOME } from '../../support/bulk-fault-server.js';

const P1 = { resourceType: 'Patient', id: 'p1' };
const P2 = { resourceType: 'Patient', id: 'p2' };

async function collect(items: AsyncIterable<BulkItem>, into: BulkItem[] = []): Promise<BulkItem[]> {
  for await (const item of items) into.push(item);
  return into;
}

const requests = (srv: { seen: { method: string; url: string }[] }, method: string, path: string): number =>
  srv.seen.filter((r) => r.method === method && r.url.split('?')[0] === path).length;

test('a status endpoint that answers 202, 429, then 500, then the manifest: the export completes, honouring Retry-After in both forms', async (t) => {
  // The script is played anew for each status request, so the date is a few seconds after the 429 is sent
  // (truncated to the second), however long the set-up before it took.
  const soon = (): string => new Date(Date.now() + 4_000).toUTCString();
  const srv = await bulkServer(t, {
    files: { '/files/Patient.ndjson': ndjson([P1, P2]) },
    status: (manifest) => [
      { status: 202, headers: { 'x-progress': '40% done', 'retry-after': '1' } },
      { status: 429, headers: { 'retry-after': soon() }, body: OUTCOME('throttled', 'slow down') },
      { status: 500, headers: { 'retry-after': '0' }, body: OUTCOME('transient', 'try again') },
      { status: 200, body: manifest },
    ],
  });
  const { gw, events } = gateway(t);
  gw.addSource('f', srv.connectionString);
  const items = await collect(gw.bulkExport('f', { pollIntervalSeconds: 0.1 }));
  // A Retry-After longer than the poll interval is waited out (a lower bound: a loaded machine only adds).
  const at = srv.seen.filter((r) => r.method === 'GET' && r.url === '/status/1').map((r) => r.at);
  assert.ok(at[1]! - at[0]! >= 990, `${at[1]! - at[0]!} ms after Retry-After: 1`);
  assert.ok(at[2]! - at[1]! >= 990, `${at[2]! - at[1]!} ms after a Retry-After date at least a second ahead`);
  assert.ok(at[3]! - at[2]! >= 99, `${at[3]! - at[2]!} ms after Retry-After: 0, with a poll interval of 0.1 s`);
  assert.deepEqual(items.map((i) => [i.kind, i.type, i.resource.id, i.url]), [
    ['output', 'Patient', 'p1', `${srv.url}/files/Patient.ndjson`],
    ['output', 'Patient', 'p2', `${srv.url}/files/Patient.ndjson`],
  ]);
  assert.equal(requests(srv, 'GET', '/status/1'), 4);
  const kickoff = srv.seen.find((r) => r.url.startsWith('/fhir/$export'));
  assert.equal(kickoff?.method, 'GET');
  assert.equal(kickoff?.headers.prefer, 'respond-async');
  assert.equal(kickoff?.headers.accept, 'application/fhir+json');
  for (const r of srv.seen.filter((s) => s.url !== '/token')) assert.equal(r.headers.authorization, 'Bearer token-1', `${r.method} ${r.url}`);
  assert.equal(srv.seen.find((r) => r.url === '/files/Patient.ndjson')?.headers.accept, 'application/fhir+ndjson');
  assert.equal(requests(srv, 'DELETE', '/status/1'), 1, 'the finished job is deleted');
  await settle();
  assert.deepEqual(events.filter(([n]) => n === 'fhir.bulk.progress').map(([, p]) => p.progress), ['40% done']);
});

test('the kick-off carries the level, _type, _since and every _typeFilter', async (t) => {
  const srv = await bulkServer(t);
  const { gw } = gateway(t);
  gw.addSource('f', srv.connectionString);
  await collect(gw.bulkExport('f', { level: { group: 'g-1' }, types: ['Patient', 'Observation'], since: '2024-01-01', typeFilter: ['Observation?category=laboratory', 'Patient?active=true'] }));
  const url = new URL(srv.seen.find((r) => r.url.includes('$export'))?.url ?? '', srv.url);
  assert.equal(url.pathname, '/fhir/Group/g-1/$export');
  assert.equal(url.searchParams.get('_type'), 'Patient,Observation');
  assert.equal(url.searchParams.get('_since'), '2024-01-01T00:00:00Z');
  assert.deepEqual(url.searchParams.getAll('_typeFilter'), ['Observation?category=laboratory', 'Patient?active=true']);
});

test('_type takes the R4 names R4B dropped (the sources speak R4); a name of neither is a TypeError before any request', async (t) => {
  const srv = await bulkServer(t);
  const { gw } = gateway(t);
  gw.addSource('f', srv.connectionString);
  await collect(gw.bulkExport('f', { types: ['EffectEvidenceSynthesis', 'MedicinalProduct', 'Patient'] }));
  const url = new URL(srv.seen.find((r) => r.url.includes('$export'))?.url ?? '', srv.url);
  assert.equal(url.searchParams.get('_type'), 'EffectEvidenceSynthesis,MedicinalProduct,Patient');
  const before = srv.seen.length;
  assert.throws(() => gw.bulkExport('f', { types: ['Pateint' as never] }), { name: 'TypeError', message: /FHIR R4 or R4B resource type names/ });
  assert.equal(srv.seen.length, before);
});

test('a failed job (an error status without a transient issue) is ERR_BULK_FAILED with the outcome; so are too many transient failures', async (t) => {
  const failed = await bulkServer(t, { status: () => [{ status: 500, body: OUTCOME('processing', 'the export crashed') }] });
  const flaky = await bulkServer(t, { status: () => [{ status: 503, headers: { 'retry-after': '0' } }] });
  const { gw } = gateway(t);
  gw.addSource('failed', failed.connectionString);
  gw.addSource('flaky', flaky.connectionString);
  await assert.rejects(gw.bulkExport('failed').next(), (err: Error & { code?: string; status?: number; cause?: unknown }) => {
    assert.equal(err.code, 'ERR_BULK_FAILED');
    assert.equal(err.status, 500);
    assert.match(err.message, /the job failed \(500\): the export crashed/);
    assert.deepEqual(err.cause, OUTCOME('processing', 'the export crashed'));
    return true;
  });
  assert.equal(requests(failed, 'GET', '/status/1'), 1);
  await assert.rejects(gw.bulkExport('flaky', { maxPollErrors: 2 }).next(), { code: 'ERR_BULK_FAILED', message: /3 status requests in a row failed, the last with 503/ });
  assert.equal(requests(flaky, 'GET', '/status/1'), 3);
  assert.equal(requests(failed, 'DELETE', '/status/1') + requests(flaky, 'DELETE', '/status/1'), 2);
});

test('a file cut in the middle of a line: the whole lines are yielded, then ERR_BULK_FILE names the line', async (t) => {
  const srv = await bulkServer(t, {
    files: {
      '/files/Patient.ndjson': (res) => {
        res.writeHead(200, { 'content-type': 'application/fhir+ndjson' });
        res.end(`${JSON.stringify(P1)}\n${JSON.stringify(P2).slice(0, 12)}`);
      },
    },
  });
  const { gw } = gateway(t);
  gw.addSource('f', srv.connectionString);
  const got: BulkItem[] = [];
  await assert.rejects(collect(gw.bulkExport('f'), got), { code: 'ERR_BULK_FILE', message: /output file http:\/\/127\.0\.0\.1:\d+\/files\/Patient\.ndjson: the file ends in the middle of line 2$/ });
  assert.deepEqual(got.map((i) => i.resource.id), ['p1']);
  assert.equal(requests(srv, 'DELETE', '/status/1'), 1);
});

test('the connection closes in the middle of a file: ERR_BULK_FILE after the lines that came', async (t) => {
  const srv = await bulkServer(t, {
    files: {
      '/files/Patient.ndjson': (res) => {
        res.writeHead(200, { 'content-type': 'application/fhir+ndjson', 'content-length': '100000' });
        res.write(`${JSON.stringify(P1)}\n{"resourceType":"Pat`, () => setImmediate(() => res.socket?.destroy()));
      },
    },
  });
  const { gw } = gateway(t);
  gw.addSource('f', srv.connectionString);
  const got: BulkItem[] = [];
  await assert.rejects(collect(gw.bulkExport('f'), got), { code: 'ERR_BULK_FILE', message: /the connection closed before the end of the file \(after line 1\)$/ });
  assert.deepEqual(got.map((i) => i.resource.id), ['p1']);
});

test('lines that are not JSON or not resources, and an error file line that is not an OperationOutcome: ERR_BULK_FILE with the line', async (t) => {
  const cases: [unknown[], RegExp][] = [
    [[P1, '', 'not json'], /line 3 is not JSON$/],
    [[P1, [1, 2]], /line 2 is not a FHIR resource$/],
    [[{ id: 'x' }], /line 1 is not a FHIR resource$/],
  ];
  for (const [lines, message] of cases) {
    const srv = await bulkServer(t, { files: { '/files/Patient.ndjson': ndjson(lines) } });
    const { gw } = gateway(t);
    gw.addSource('f', srv.connectionString);
    await assert.rejects(collect(gw.bulkExport('f')), { code: 'ERR_BULK_FILE', message });
  }
  const srv = await bulkServer(t, { files: { '/files/error.ndjson': ndjson([P1]) } });
  const { gw } = gateway(t);
  gw.addSource('f', srv.connectionString);
  await assert.rejects(collect(gw.bulkExport('f')), { code: 'ERR_BULK_FILE', message: /error file .*: line 1 of an error file is a Patient, not an OperationOutcome$/ });
});

test('error files are yielded as OperationOutcomes and deleted files as Bundles, after the output', async (t) => {
  const outcome = OUTCOME('not-found', 'Patient/p9 could not be exported');
  const deleted = { resourceType: 'Bundle', type: 'transaction', entry: [{ request: { method: 'DELETE', url: 'Patient/p0' } }] };
  const srv = await bulkServer(t, {
    files: { '/files/error.ndjson': ndjson([outcome]), '/files/Patient.ndjson': ndjson([P1]), '/files/Bundle-del.ndjson': ndjson([deleted]) },
    status: (m) => {
      const manifest = m as { output: { type: string; url: string }[]; deleted?: unknown[] };
      const del = manifest.output.filter((o) => o.url.includes('Bundle-del'));
      return [{ status: 200, body: { ...manifest, output: manifest.output.filter((o) => !o.url.includes('Bundle-del')), deleted: del } }];
    },
  });
  const { gw } = gateway(t);
  gw.addSource('f', srv.connectionString);
  const items = await collect(gw.bulkExport('f', { since: '2024-01-01' }));
  assert.deepEqual(items.map((i) => [i.kind, i.type]), [['output', 'Patient'], ['deleted', 'Bundle'], ['error', 'OperationOutcome']]);
  assert.deepEqual(items[2]?.resource, outcome);
});

test('a manifest pointing at another origin: ERR_CROSS_ORIGIN before any download; with fileOrigins the file is read, with the token only when the manifest requires it', async (t) => {
  const other = await startServer(t, (_req, res) => ndjson([P2])(res));
  const file = { type: 'Patient', url: `${other.url}/elsewhere/Patient.ndjson` };
  const srv = await bulkServer(t, { extra: { output: [file] } });
  const open = await bulkServer(t, { extra: { output: [file] }, requiresAccessToken: false, files: { '/files/Patient.ndjson': ndjson([P1]) } });
  const { gw } = gateway(t);
  gw.addSource('f', srv.connectionString);
  gw.addSource('open', open.connectionString);
  await assert.rejects(collect(gw.bulkExport('f')), {
    code: 'ERR_CROSS_ORIGIN',
    message: new RegExp(`names a file on ${other.url.replace(/\./g, '\\.')}, not the source's origin; allow it with the option fileOrigins$`),
  });
  assert.equal(other.seen.length, 0, 'nothing was sent to the other origin');
  assert.equal(requests(srv, 'DELETE', '/status/1'), 1);

  const items = await collect(gw.bulkExport('f', { fileOrigins: [other.url] }));
  assert.deepEqual(items.map((i) => [i.resource.id, i.url]), [['p2', file.url]]);
  assert.match(String(other.seen[0]?.headers.authorization), /^Bearer token-\d$/);

  const anonymous = await collect(gw.bulkExport('open', { fileOrigins: [other.url] }));
  assert.deepEqual(anonymous.map((i) => i.resource.id), ['p1', 'p2']);
  assert.equal(other.seen[1]?.headers.authorization, undefined, 'requiresAccessToken false: no token to the other origin');
  assert.equal(open.seen.find((r) => r.url === '/files/Patient.ndjson')?.headers.authorization, undefined, 'nor to the source');
  assert.match(String(open.seen.find((r) => r.url === '/status/1')?.headers.authorization), /^Bearer /);
});

test('leaving the loop in the middle of a file sends DELETE; deleteJob false keeps a finished job', async (t) => {
  const srv = await bulkServer(t, { files: { '/files/Patient.ndjson': ndjson([P1, P2]) } });
  const { gw } = gateway(t);
  gw.addSource('f', srv.connectionString);
  for await (const item of gw.bulkExport('f')) {
    assert.equal(item.resource.id, 'p1');
    break;
  }
  assert.equal(requests(srv, 'DELETE', '/status/1'), 1);
  await collect(gw.bulkExport('f', { deleteJob: false }));
  assert.equal(requests(srv, 'DELETE', '/status/1'), 1, 'no second DELETE');
});

/** A server whose Patient file sends one line and never ends, and a gateway with it as source "f". */
async function stalledDownload(t: TestContext) {
  const srv = await bulkServer(t, {
    files: {
      '/files/Patient.ndjson': (res) => {
        res.writeHead(200, { 'content-type': 'application/fhir+ndjson' });
        res.write(`${JSON.stringify(P1)}\n`); // and never ends
      },
    },
  });
  const { gw } = gateway(t);
  gw.addSource('f', srv.connectionString);
  return { srv, gw };
}

test('aborting during a download rejects ERR_ABORTED at once and deletes the job', async (t) => {
  const { srv, gw } = await stalledDownload(t);
  const controller = new AbortController();
  const run = gw.bulkExport('f', { signal: controller.signal });
  assert.equal((await run.next()).value?.resource.id, 'p1');
  const next = run.next();
  controller.abort();
  await assert.rejects(next, { code: 'ERR_ABORTED' });
  await until(() => requests(srv, 'DELETE', '/status/1') === 1, 'the DELETE');
});

test('closing the gateway during a download ends the export with ERR_CLOSED', async (t) => {
  const { gw } = await stalledDownload(t);
  const run = gw.bulkExport('f');
  assert.equal((await run.next()).value?.resource.id, 'p1');
  const next = run.next();
  await gw.close();
  await assert.rejects(next, { code: 'ERR_CLOSED', message: /the gateway was closed during the download/ });
});

test('a kick-off answered 200 or without Content-Location, and a malformed manifest: ERR_BULK_RESPONSE', async (t) => {
  const answers = [
    (res: import('node:http').ServerResponse) => { res.writeHead(200, { 'content-type': 'application/fhir+json' }); res.end('{"resourceType":"Bundle"}'); },
    (res: import('node:http').ServerResponse) => { res.writeHead(202, { 'content-length': '0' }); res.end(); },
  ];
  let i = 0;
  const srv = await startServer(t, (_req, res) => answers[i++]?.(res));
  const { gw } = gateway(t);
  gw.addSource('f', `fhir://${srv.url.slice('http://'.length)}/fhir`);
  await assert.rejects(gw.bulkExport('f').next(), { code: 'ERR_BULK_RESPONSE', status: 200, message: /200 instead of 202 Accepted/ });
  await assert.rejects(gw.bulkExport('f').next(), { code: 'ERR_BULK_RESPONSE', message: /a 202 without a usable Content-Location/ });
  const manifests: [unknown, RegExp][] = [
    [[], /the manifest is not a JSON object/],
    [{ output: [] }, /has no boolean "requiresAccessToken"/],
    [{ requiresAccessToken: true }, /has no "output" array/],
    [{ requiresAccessToken: true, output: [{ type: 'Patient', url: 'files/1.ndjson' }] }, /output\[0\]\.url that is not an absolute http\(s\) URL/],
    [{ requiresAccessToken: true, output: [{ url: 'http://127.0.0.1/x.ndjson' }] }, /output\[0\] without a "type"/],
    [{ requiresAccessToken: true, output: [], error: {} }, /"error" that is not an array/],
  ];
  for (const [manifest, message] of manifests) {
    const bad = await bulkServer(t, { status: () => [{ status: 200, body: manifest }] });
    gw.addSource('bad', bad.connectionString);
    await assert.rejects(gw.bulkExport('bad').next(), { code: 'ERR_BULK_RESPONSE', message });
  }
});

/** Status requests the fault server saw. */
const statusRequests = (srv: { seen: { method: string; url: string }[] }): number => requests(srv, 'GET', '/status/1');

test('Retry-After: 0 or a date in the past never makes polling faster than pollIntervalSeconds', async (t) => {
  const past = new Date(Date.now() - 60_000).toUTCString();
  const srv = await bulkServer(t, {
    status: () => [202, 202, 429, 503].flatMap((status) => [
      { status, headers: { 'retry-after': '0' } },
      { status, headers: { 'retry-after': past } },
    ]).concat([{ status: 202, headers: { 'retry-after': '0' } }]),
  });
  const { gw } = gateway(t);
  gw.addSource('f', srv.connectionString);
  const started = performance.now();
  await assert.rejects(collect(gw.bulkExport('f', { pollIntervalSeconds: 0.25, maxPollErrors: 100, signal: AbortSignal.timeout(1500) })), { code: 'ERR_TIMEOUT' });
  const elapsed = performance.now() - started;
  // One request at the start and one per 250 ms after it, at most (the server at once answered 1,066 in 3 s).
  assert.ok(statusRequests(srv) <= 1 + Math.floor(elapsed / 250), `${statusRequests(srv)} status requests in ${elapsed.toFixed(0)} ms`);
  assert.ok(statusRequests(srv) >= 1);
  assert.throws(() => gw.bulkExport('f', { pollIntervalSeconds: 0.05 }), { name: 'RangeError', message: /options\.pollIntervalSeconds/ });
});

test('an absurd Retry-After (an epoch time on a 429, as the SMART reference server sends) ends the export at once, naming the 429', async (t) => {
  const epoch = String(Math.floor(Date.now() / 1000) + 60);
  const srv = await bulkServer(t, { status: () => [{ status: 429, headers: { 'retry-after': epoch }, body: OUTCOME('throttled', 'slow down') }] });
  const { gw } = gateway(t);
  gw.addSource('f', srv.connectionString);
  await assert.rejects(collect(gw.bulkExport('f', { deadlineSeconds: Infinity })), {
    code: 'ERR_BULK_RESPONSE',
    message: new RegExp(`the status request answered 429 with Retry-After: ${epoch}, a wait of \\d+ days, not honoured`),
  });
  assert.equal(statusRequests(srv), 1);
  assert.equal(requests(srv, 'DELETE', '/status/1'), 1, 'the job is cancelled');
});

test('a Retry-After past the deadline ends the export at once with ERR_TIMEOUT naming the status and the wait', async (t) => {
  const srv = await bulkServer(t, { status: () => [{ status: 429, headers: { 'retry-after': '7200' } }] });
  const { gw } = gateway(t);
  gw.addSource('f', srv.connectionString);
  await assert.rejects(collect(gw.bulkExport('f', { deadlineSeconds: 3600 })), {
    code: 'ERR_TIMEOUT',
    message: /cannot finish within its deadline of 3600 s: the status request answered 429 with Retry-After: 7200, a wait of 7200 s, and 3\d{3} s are left/,
  });
  assert.equal(statusRequests(srv), 1);
});

test('429s on status requests count toward maxPollErrors: throttled forever, the export ends naming the 429', async (t) => {
  const srv = await bulkServer(t, { status: () => [{ status: 202 }, { status: 429, headers: { 'retry-after': '0' }, body: OUTCOME('throttled', 'slow down') }] });
  const { gw } = gateway(t);
  gw.addSource('f', srv.connectionString);
  await assert.rejects(collect(gw.bulkExport('f', { pollIntervalSeconds: 0.1, maxPollErrors: 3 })), {
    code: 'ERR_BULK_FAILED',
    message: /4 status requests in a row failed, the last with 429: slow down/,
  });
  assert.equal(statusRequests(srv), 5, 'one 202, then three 429s waited out and the fourth ends it');
});
