/** The sandbox's Bulk Data endpoints over plain HTTP: kick-off, status, manifest, files, DELETE. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sandbox as testSandbox } from '../support/sandbox.js';
import type { Resource } from '../../src/fhir/index.js';
import { fhirFor } from './helpers.js';

const KICKOFF = { accept: 'application/fhir+json', prefer: 'respond-async' };

test('kick-off answers 202 with Content-Location; the status answers 202 with Retry-After and X-Progress, then the manifest', async (t) => {
  const { sandbox, fhir } = await fhirFor(t, { open: false, exportPolls: 2, exportRetryAfterSeconds: 3 });
  const kick = await fhir('/$export?_type=Patient,Condition', { headers: KICKOFF });
  assert.equal(kick.status, 202);
  const statusUrl = kick.headers.get('content-location') ?? '';
  assert.match(statusUrl, new RegExp(`^${sandbox.fhirBase.replace(/[.$]/g, '\\$&')}/\\$export-status/[0-9a-f-]{36}$`));
  for (const step of [1, 2]) {
    const running = await fhir(statusUrl);
    assert.equal(running.status, 202);
    assert.equal(running.headers.get('retry-after'), '3');
    assert.equal(running.headers.get('x-progress'), `in progress: step ${step} of 3`);
  }
  const done = await fhir.json(statusUrl);
  assert.equal(done.status, 200);
  assert.match(done.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(done.body.requiresAccessToken, true);
  assert.equal(done.body.request, `${sandbox.fhirBase}/$export?_type=Patient%2CCondition`);
  assert.ok(!Number.isNaN(Date.parse(done.body.transactionTime)));
  assert.deepEqual(done.body.error, []);
  assert.deepEqual(done.body.output.map((o: { type: string }) => o.type), ['Patient', 'Condition']);
  const patients = await fhir.json('/Patient?_count=100');
  const file = done.body.output[0] as { url: string; count: number };
  assert.equal(file.count, patients.body.total);
  const res = await fhir(file.url);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/fhir+ndjson');
  const lines = (await res.text()).split('\n');
  assert.equal(lines.pop(), '', 'every line ends with a line break');
  assert.deepEqual(lines.map((l) => JSON.parse(l).id).sort(), patients.body.entry.map((e: { resource: { id: string } }) => e.resource.id).sort());
  const unauthorized = await fetch(file.url);
  assert.equal(unauthorized.status, 401, 'files need the access token');

  assert.equal((await fhir(statusUrl, { method: 'DELETE' })).status, 202);
  assert.equal((await fhir(statusUrl)).status, 404);
  assert.equal((await fhir(file.url)).status, 404);
  assert.equal((await fhir(statusUrl, { method: 'DELETE' })).status, 404);
});

test('bad kick-offs answer 400 or 404 with an OperationOutcome; wrong methods 405', async (t) => {
  const { fhir } = await fhirFor(t);
  const cases: [string, Record<string, string>, number, RegExp][] = [
    ['/$export', { accept: 'application/fhir+json' }, 400, /Prefer: respond-async/],
    ['/$export', { ...KICKOFF, accept: 'text/csv' }, 400, /application\/fhir\+json only/],
    ['/$export?_type=Patient,Nope', KICKOFF, 400, /"Nope" is not a resource type/],
    ['/$export?_since=yesterday', KICKOFF, 400, /_since must be a FHIR instant/],
    ['/$export?_outputFormat=text/csv', KICKOFF, 400, /_outputFormat/],
    ['/Patient/$export?_typeFilter=Patient%3Factive%3Dtrue', KICKOFF, 400, /_typeFilter is not supported/],
    ['/Group/nope/$export', KICKOFF, 404, /Group\/nope is not known/],
    ['/$export-status/nope', {}, 404, /no such export job/],
  ];
  for (const [path, headers, status, message] of cases) {
    const res = await fhir.json(path, { headers });
    assert.equal(res.status, status, path);
    assert.equal(res.body.resourceType, 'OperationOutcome');
    assert.match(res.body.issue[0].diagnostics ?? res.body.issue[0].details?.text, message, path);
  }
  assert.equal((await fhir('/$export', { method: 'POST', headers: KICKOFF })).status, 405);
});

test('an open sandbox says its files need no token; export options out of range throw at start', async (t) => {
  const sandbox = await testSandbox(t, { open: true, exportPolls: 0 });
  const kick = await fetch(`${sandbox.fhirBase}/Patient/$export`, { headers: KICKOFF });
  const manifest = (await (await fetch(kick.headers.get('content-location') ?? '')).json()) as { output: { type: string; url: string }[]; requiresAccessToken: boolean };
  assert.equal(manifest.requiresAccessToken, false, 'an open sandbox needs no token for its files');
  assert.ok(manifest.output.length > 0);
  await assert.rejects(testSandbox(t, { exportPolls: -1 }), { name: 'RangeError', message: /exportPolls/ });
  await assert.rejects(testSandbox(t, { exportRetryAfterSeconds: 1.5 }), { name: 'RangeError', message: /exportRetryAfterSeconds/ });
});

test('streaming a 20 MB export file to a client leaves no listener behind: no MaxListenersExceededWarning', async (t) => {
  // Each resource is 10 KiB: the answer's buffer fills at almost every line, and each wait for 'drain'
  // used to leave a 'close' listener on the answer (1,250 on this file).
  const note = 'x'.repeat(10 * 1024);
  const seed = Array.from({ length: 2000 }, (_, i) => ({ resourceType: 'Observation', id: `obs-${i}`, status: 'final', code: { text: 'n' }, note: [{ text: note }] }));
  const { fhir } = await fhirFor(t, { open: true, exportPolls: 0, seed: seed as Resource[] });
  const warnings: string[] = [];
  const onWarning = (warning: Error): void => void warnings.push(`${warning.name}: ${warning.message}`);
  process.on('warning', onWarning);
  t.after(() => process.off('warning', onWarning));
  const kick = await fhir('/$export?_type=Observation', { headers: KICKOFF });
  const manifest = await fhir.json(kick.headers.get('content-location') ?? '');
  const file = manifest.body.output[0] as { url: string; count: number };
  assert.equal(file.count, 2000);
  const text = await (await fhir(file.url)).text();
  assert.equal(text.split('\n').length - 1, 2000);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(warnings, []);
});
