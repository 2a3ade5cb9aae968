/**
 * `npm start` as a newcomer meets it: the demo starts with PORT=0, says where it listens, every printed
 * `curl` command answers 200 with the body it promises, the audit trail shows the events and no
 * secret, and SIGTERM shuts it down with exit code 0 and its key file gone.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { Bundle, OperationOutcome, Patient } from '../../src/index.js';
import { readCDA } from '../../src/soap/index.js';
import { ENRICHED_TAG, SUMMARY_EXTENSION_URL } from '../../examples/demo/handlers.js';
import { curlToFetch, spawnDemo, waitForBanner, waitForOutput, type DemoProcess } from '../support/demo-process.js';

function stopOnExit(t: { after(fn: () => unknown): void }, demo: DemoProcess): void {
  t.after(async () => {
    if (demo.child.exitCode === null && demo.child.signalCode === null) {
      demo.child.kill('SIGKILL');
      await demo.exited;
    }
    rmSync(demo.tmp, { recursive: true, force: true });
  });
}

/** The demo's key folders in the child's TMPDIR (tsx keeps its cache there too). */
function keyDirs(demo: DemoProcess): string[] {
  return readdirSync(demo.tmp).filter((name) => name.startsWith('fhirgate-demo-'));
}

/** What each printed write must answer: create 201 with an id, update 200 with the phone, delete 200. */
async function checkWrite(url: string, method: string, res: Response, deletes: boolean[]): Promise<string> {
  const text = await res.text();
  if (method === 'POST') {
    assert.equal(res.status, 201, text);
    const patient = JSON.parse(text) as Patient;
    assert.match(patient.id ?? '', /^[A-Za-z0-9.-]+$/);
    assert.equal(res.headers.get('location'), `/demo/ehr-a/Patient/${patient.id}`);
    assert.equal(patient.name?.[0]?.family, 'Newman');
    return 'create';
  }
  assert.equal(res.status, 200, `${method} ${url} -> ${res.status} ${text}`);
  if (method === 'PUT') {
    const patient = JSON.parse(text) as Patient;
    assert.equal(patient.id, 'a-patient-3');
    assert.equal(patient.telecom?.[0]?.value, '+1-206-555-0100');
    return 'update';
  }
  deletes.push((JSON.parse(text) as { deleted: boolean }).deleted);
  return 'delete';
}

/** What each kind of printed request must answer, beyond status 200. */
async function checkAnswer(url: string, res: Response): Promise<string> {
  const text = await res.text();
  assert.equal(res.status, 200, `${url} -> ${res.status} ${text.slice(0, 300)}`);
  const path = new URL(url).pathname;
  if (path.startsWith('/fhir/transform/Patient/')) {
    const patient = JSON.parse(text) as Patient;
    assert.equal(patient.resourceType, 'Patient');
    assert.equal(patient.id, path.split('/').at(-1));
    const summary = patient.extension?.find((e) => e.url === SUMMARY_EXTENSION_URL);
    assert.match(String(summary?.extension?.find((e) => e.url === 'text')?.valueString), /\d+ years, \d+ active condition\(s\), last vital signs: /);
    assert.ok(patient.meta?.tag?.some((t) => t.system === ENRICHED_TAG.system && t.code === ENRICHED_TAG.code), text);
    return 'transform';
  }
  if (path.startsWith('/fhir/aggregate/')) {
    const bundle = JSON.parse(text) as Bundle;
    assert.equal(bundle.type, 'searchset');
    assert.ok((bundle.total ?? 0) > 0, text.slice(0, 300));
    const failed = (bundle.entry ?? []).filter((e) => e.search?.mode === 'outcome').map((e) => (e.resource as OperationOutcome).issue[0]?.diagnostics);
    assert.deepEqual(failed, url.includes('sources=ehr-c') ? ['source "ehr-c" failed: no source is registered under that name'] : []);
    return 'aggregate';
  }
  if (path.startsWith('/cds/cds-services/')) {
    const { cards } = JSON.parse(text) as { cards: { summary: string; detail: string }[] };
    assert.equal(cards.length, 1);
    assert.match(cards[0]!.summary, /^Peter James Chalmers: 3 active problem\(s\) at 2 source\(s\)$/);
    assert.match(cards[0]!.detail, /Hyperlipidemia \(ehr-b\)/);
    return 'cds';
  }
  assert.match(text, /ProcessDocumentResponse/);
  const base64 = /<(?:\w+:)?Document>([^<]*)</.exec(text)?.[1];
  const cda = readCDA(Buffer.from(base64 ?? '', 'base64').toString('utf8'));
  assert.deepEqual(cda.problems.map((p) => p.code?.code).sort(), ['195967001', '38341003']);
  return 'soap';
}

test('npm start with PORT=0: every printed curl command answers 200, SIGTERM exits 0 and removes the key file', async (t) => {
  const demo = spawnDemo('0', {}, true);
  stopOnExit(t, demo);
  const banner = await waitForBanner(demo);
  const beforeBanner = banner.slice(0, banner.indexOf('fhirgate demo is running on ')).trim().split('\n');
  assert.deepEqual(beforeBanner.map((l) => (JSON.parse(l) as { msg: string }).msg), ['listening'], 'only the host\'s JSON "listening" line comes before the banner');
  const origin = /fhirgate demo is running on (http:\/\/127\.0\.0\.1:(\d+))/.exec(banner)?.[1];
  assert.ok(origin !== undefined && !origin.endsWith(':0'), banner);
  assert.match(banner, new RegExp(`^  Docs \\(try every endpoint here\\): +${origin}/docs$`, 'm'));
  const keyPath = /^ {2}ehr-b's private key: (\S+) \(mode 0600/m.exec(banner)?.[1] ?? '';
  assert.ok(keyPath.startsWith(demo.tmp), banner);
  assert.equal(statSync(keyPath).mode & 0o777, 0o600);

  for (const path of ['/', '/health', '/gateway/status', '/openapi.json', '/docs', '/fhir/metadata', '/cds/cds-services', '/notereader/?wsdl']) {
    const res = await fetch(`${origin}${path}`);
    assert.equal(res.status, 200, path);
    await res.arrayBuffer();
  }
  const commands = banner.split('\n').filter((line) => line.startsWith('  curl '));
  const kinds = new Set<string>();
  const deletes: boolean[] = [];
  for (const line of commands) {
    const { url, init } = curlToFetch(line);
    assert.ok(url.startsWith(`${origin}/`), line);
    const res = await fetch(url, init);
    kinds.add(new URL(url).pathname.startsWith('/demo/') ? await checkWrite(url, init.method ?? 'GET', res, deletes) : await checkAnswer(url, res));
  }
  assert.deepEqual([...kinds].sort(), ['aggregate', 'cds', 'create', 'delete', 'soap', 'transform', 'update']);
  assert.deepEqual(deletes, [true]);
  const gone = await fetch(`${origin}/fhir/transform/Patient/a-patient-5?source=ehr-a`);
  assert.equal(gone.status, 410, 'the deleted patient is gone');
  await gone.arrayBuffer();

  demo.child.kill('SIGTERM');
  assert.equal(await demo.exited, 0, demo.stderr());
  assert.equal(existsSync(keyPath), false, 'the key file is removed');
  assert.deepEqual(keyDirs(demo), [], 'no key folder is left in TMPDIR');
  const out = demo.stdout();
  assert.doesNotMatch(out, /demo-secret|BEGIN PRIVATE KEY|access_token|Bearer /, 'no secret is printed');
  // After the banner: one format (JSON lines) on one stream (stdout); nothing on stderr.
  const log = out.slice(out.indexOf('Ctrl-C stops.') + 'Ctrl-C stops.'.length).trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.equal(demo.stderr(), '');
  const events = new Set(log.filter((l) => l.msg === 'event').map((l) => l.event));
  for (const event of ['fhir.patient.transform', 'fhir.condition.aggregate', 'fhir.observation.aggregate', 'cdshooks.patient-view', 'notereader.processdocument', 'fhir.patient.create', 'fhir.patient.update', 'fhir.patient.delete']) {
    assert.ok(events.has(event), `an audit line for ${event}`);
  }
  const access = log.filter((l) => l.msg === 'request');
  assert.ok(access.length >= commands.length, `one access line per request (${access.length})`);
  assert.ok(access.every((l) => l.level === 'info' && typeof l.request_id === 'string' && typeof l.status === 'number' && typeof l.route === 'string'));
  assert.ok(access.some((l) => l.method === 'DELETE' && l.route === '/demo/:source/Patient/:id'));
  assert.ok(log.every((l) => typeof l.time === 'string' && typeof l.level === 'string'));
  assert.ok(log.some((l) => l.msg === 'shutting down' && l.signal === 'SIGTERM'));
  assert.equal(log.at(-1)?.msg, 'stopped');
});

test('LOG_LEVEL=warn silences the access and audit lines; a LOG_LEVEL that is not a level exits 1', async (t) => {
  const quiet = spawnDemo('0', { LOG_LEVEL: 'warn' });
  stopOnExit(t, quiet);
  const banner = await waitForBanner(quiet);
  const origin = /running on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1];
  const res = await fetch(`${origin}/fhir/transform/Patient/a-patient-1?source=ehr-a`);
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  quiet.child.kill('SIGTERM');
  assert.equal(await quiet.exited, 0);
  const after = quiet.stdout().slice(quiet.stdout().indexOf('Ctrl-C stops.'));
  assert.doesNotMatch(after, /"msg":"(request|event|shutting down|stopped)"/);

  const bad = spawnDemo('0', { LOG_LEVEL: 'loud' });
  stopOnExit(t, bad);
  assert.equal(await bad.exited, 1);
  assert.match(bad.stderr(), /LOG_LEVEL must be one of debug, info, warn, error, not "loud"/);
});

test('a second Ctrl-C while shutdown waits for a request exits at once with code 1, key file still removed', async (t) => {
  const demo = spawnDemo('0');
  stopOnExit(t, demo);
  const banner = await waitForBanner(demo);
  const port = Number(/running on http:\/\/127\.0\.0\.1:(\d+)/.exec(banner)?.[1]);
  // A request whose body never ends keeps the first shutdown waiting (for up to its 10 s grace). With
  // `Expect: 100-continue`, Node answers "100 Continue" once the request reached the host's handler.
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {}); // reset when the demo exits: expected
  t.after(() => socket.destroy());
  await once(socket, 'connect');
  socket.write('POST /notereader/ HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n');
  let answer = '';
  while (!answer.includes('100 Continue')) answer += String((await once(socket, 'data'))[0]);
  socket.write('<soap');
  demo.child.kill('SIGINT');
  await waitForOutput(demo, '"msg":"shutting down","signal":"SIGINT"');
  demo.child.kill('SIGINT');
  assert.equal(await demo.exited, 1);
  assert.match(demo.stdout(), /"level":"warn","msg":"exiting without waiting","signal":"SIGINT"/);
  assert.doesNotMatch(demo.stdout(), /"msg":"stopped"/);
  assert.deepEqual(keyDirs(demo), []);
});

test('a busy port: a clear message, exit code 1, and no key file left behind', async (t) => {
  const blocker = createServer();
  blocker.listen(0, '127.0.0.1');
  await once(blocker, 'listening');
  t.after(() => blocker.close());
  const port = (blocker.address() as AddressInfo).port;
  const demo = spawnDemo(String(port));
  stopOnExit(t, demo);
  assert.equal(await demo.exited, 1, demo.stdout());
  assert.match(demo.stderr(), new RegExp(`Port ${port} is already in use\\..*PORT=0 picks a free one`));
  assert.deepEqual(keyDirs(demo), []);
});

test('a PORT that is not a port number is refused with exit code 1', async (t) => {
  const demo = spawnDemo('80a');
  stopOnExit(t, demo);
  assert.equal(await demo.exited, 1);
  assert.match(demo.stderr(), /PORT must be an integer from 0 to 65535, not "80a"/);
});
