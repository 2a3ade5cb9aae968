/**
 * `fhirgate serve` and the URLs it hands out (review finding 1): `publicUrl` / `--public-url`,
 * `trustProxy` + `allowedHosts` and `cds.fhirServers` reach the host and the CDS service the CLI
 * builds, as real child processes. A forged `Host` never reaches the WSDL or `/fhir/metadata`.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { startSandbox } from '../../src/sandbox/index.js';
import { child } from '../../src/soap/xml-tree.js';
import { call } from '../support/host-helpers.js';
import { parse } from '../support/soap-client.js';
import { runMain, startCli, tempDir, waitServing } from '../support/run-cli.js';

const EVIL = { host: 'evil.example:9999', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };

/** Writes a config with a NoteReader mount (plus `extra`) over a fresh sandbox, serves it, returns the origin. */
async function serveConfig(t: TestContext, extra: Record<string, unknown>, args: readonly string[] = []): Promise<{ origin: string; dir: string }> {
  const sandbox = await startSandbox({ seed: 'a' });
  t.after(() => sandbox.close());
  const dir = tempDir(t);
  writeFileSync(join(dir, 'notereader.mjs'), `export default function (nr) { nr.method('ProcessDocument', ({ document }) => ({ document, error: '' })); }\n`);
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({ sources: { ehr: sandbox.connectionString() }, notereader: { module: './notereader.mjs' }, port: 0, ...extra }));
  const run = startCli(t, ['serve', '--config', join(dir, 'fhirgate.json'), ...args]);
  const serving = await waitServing(run);
  return { origin: new URL(serving.gateway).origin, dir };
}

async function wsdlAddress(origin: string, headers: Record<string, string>): Promise<string | undefined> {
  const res = await call(origin, '/notereader?wsdl', { headers });
  assert.equal(res.status, 200);
  return child(child(child(parse(res.text), 'service'), 'port'), 'address')?.attributes.location;
}

async function metadataUrl(origin: string, headers: Record<string, string>): Promise<unknown> {
  const res = await call(origin, '/fhir/metadata', { headers });
  assert.equal(res.status, 200);
  return (res.json() as { implementation?: { url?: string } }).implementation?.url;
}

test('serve without publicUrl: a forged Host is ignored, the listening address is written', async (t) => {
  const { origin } = await serveConfig(t, {});
  assert.equal(await wsdlAddress(origin, EVIL), `${origin}/notereader`);
  assert.equal(await metadataUrl(origin, EVIL), `${origin}/fhir`);
});

test('serve with publicUrl: the WSDL address and /fhir/metadata url are it, whatever Host is sent', async (t) => {
  const { origin } = await serveConfig(t, { publicUrl: 'https://fhir.example.org/gw/' });
  for (const headers of [EVIL, {}, { host: 'fhir.example.org' }] as Array<Record<string, string>>) {
    assert.equal(await wsdlAddress(origin, headers), 'https://fhir.example.org/gw/notereader');
    assert.equal(await metadataUrl(origin, headers), 'https://fhir.example.org/gw/fhir');
  }
});

test('serve --public-url wins over the file\'s publicUrl', async (t) => {
  const { origin } = await serveConfig(t, { publicUrl: 'https://file.example.org' }, ['--public-url', 'https://flag.example.org']);
  assert.equal(await wsdlAddress(origin, EVIL), 'https://flag.example.org/notereader');
});

test('serve with trustProxy + allowedHosts: an allowed X-Forwarded-Host is used, another is not', async (t) => {
  const { origin } = await serveConfig(t, { trustProxy: true, allowedHosts: ['ehr-gw.example.org', 'alt.example.org:8443'] });
  const allowed = { host: 'inner', 'x-forwarded-host': 'ehr-gw.example.org', 'x-forwarded-proto': 'https' };
  assert.equal(await wsdlAddress(origin, allowed), 'https://ehr-gw.example.org/notereader');
  assert.equal(await metadataUrl(origin, allowed), 'https://ehr-gw.example.org/fhir');
  assert.equal(await wsdlAddress(origin, { host: 'inner', 'x-forwarded-host': 'alt.example.org:8443', 'x-forwarded-proto': 'https' }), 'https://alt.example.org:8443/notereader');
  assert.equal(await wsdlAddress(origin, EVIL), `${origin}/notereader`);
  assert.equal(await metadataUrl(origin, EVIL), `${origin}/fhir`);
});

test('serve with trustProxy and no allowedHosts uses no forwarded host', async (t) => {
  const { origin } = await serveConfig(t, { trustProxy: true });
  assert.equal(await wsdlAddress(origin, { host: 'ehr-gw.example.org', 'x-forwarded-host': 'ehr-gw.example.org' }), `${origin}/notereader`);
});

test('serve with cds.fhirServers: prefetch reads an allowlisted loopback server and refuses one outside the list', async (t) => {
  const ehr = await startSandbox({ seed: 'a' });
  t.after(() => ehr.close());
  const other = await startSandbox({ seed: 'b' });
  t.after(() => other.close());
  const dir = tempDir(t);
  writeFileSync(join(dir, 'cds.mjs'), `export default function (cds) {
  cds.hook('patient-view', { id: 'prefetched', description: 'Shows the prefetched patient', prefetch: { patient: 'Patient/{{context.patientId}}' } },
    (request) => ({ cards: [{ summary: 'Patient ' + request.prefetch.patient.id, indicator: 'info', source: { label: 'cli test' } }] }));
}\n`);
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({ sources: { ehr: ehr.connectionString() }, cds: { module: './cds.mjs', fhirServers: [ehr.fhirBase] }, port: 0 }));
  const run = startCli(t, ['serve', '--config', join(dir, 'fhirgate.json')]);
  const origin = new URL((await waitServing(run)).gateway).origin;
  const token = await fetch(ehr.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('fhirgate-demo:demo-secret').toString('base64')}` },
    body: 'grant_type=client_credentials&scope=system%2F*.read',
  });
  const fhirAuthorization = { access_token: ((await token.json()) as { access_token: string }).access_token, token_type: 'Bearer', expires_in: 300, scope: 'system/*.read', subject: 'prefetched' };
  const hook = (fhirServer: string) =>
    call(origin, '/cds/cds-services/prefetched', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hook: 'patient-view', hookInstance: 'd1577c69-dfbe-44ad-ba6d-3e05e953b2ea', fhirServer, fhirAuthorization, context: { userId: 'Practitioner/1', patientId: 'a-patient-1' } }),
    });
  const allowed = await hook(ehr.fhirBase);
  assert.equal(allowed.status, 200, allowed.text);
  assert.equal(allowed.json().cards[0].summary, 'Patient a-patient-1');
  const refused = await hook(other.fhirBase);
  assert.equal(refused.status, 412, refused.text);
  assert.equal(refused.json().error.code, 'ERR_CDS_PREFETCH');
  assert.equal(other.stats.requests.byKind.read ?? 0, 0, 'a server outside cds.fhirServers is never contacted');
  assert.equal(ehr.stats.requests.byKind.read, 1);
});

test('bad publicUrl, trustProxy, allowedHosts and cds.fhirServers name their path, never the value', async (t) => {
  const dir = tempDir(t);
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [{ publicUrl: 'ftp://secret-value.example' }, /publicUrl: must be an absolute http\(s\) URL/],
    [{ publicUrl: 'https://user:secret-value@x.example' }, /publicUrl: must be/],
    [{ trustProxy: 'secret-value' }, /trustProxy: must be true or false/],
    [{ allowedHosts: ['secret-value/path'] }, /allowedHosts: must be an array of host names/],
    [{ allowedHosts: 'secret-value' }, /allowedHosts: must be an array/],
    [{ cds: { module: './cds.mjs', fhirServers: ['secret-value'] } }, /cds\.fhirServers: must be an array of absolute http\(s\) base URLs/],
    [{ cds: { module: './cds.mjs', fhirServerz: [] } }, /cds\.fhirServerz: unknown setting; allowed: path, module, fhirServers/],
  ];
  for (const [extra, message] of cases) {
    writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({ sources: { ehr: 'fhir://localhost:8080/fhir/' }, ...extra }));
    const { code, stdout, stderr } = await runMain(['serve', '--config', join(dir, 'fhirgate.json'), '--port', '0']);
    assert.notEqual(code, 0);
    assert.match(stderr, message);
    assert.doesNotMatch(stdout + stderr, /secret-value/);
  }
  const flag = await runMain(['serve', '--source', 'ehr=fhir://localhost:8080/fhir/', '--public-url', 'secret-value', '--port', '0']);
  assert.notEqual(flag.code, 0);
  assert.match(flag.stderr, /--public-url: must be an absolute http\(s\) URL/);
  assert.doesNotMatch(flag.stdout + flag.stderr, /secret-value/);
});

test('serve --help lists publicUrl, trustProxy, allowedHosts, cds.fhirServers and --public-url', async () => {
  const { code, stdout } = await runMain(['serve', '--help']);
  assert.equal(code, 0);
  for (const name of ['--public-url', 'publicUrl', 'trustProxy', 'allowedHosts', 'cds.fhirServers']) assert.match(stdout, new RegExp(name.replace('.', '\\.')));
});
