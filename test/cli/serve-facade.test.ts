// `fhirgate serve` serves the FHIR facade without code: every source a FHIR base under the prefix, the
// federated base, callers from fhirgate.json; open read-only on loopback without callers (and says so);
// source names that collide with the prefix's routes refused at configuration.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { sandbox } from '../support/sandbox.js';
import { startCli, tempDir, waitServing } from '../support/run-cli.js';

test('serve --source ehr=… --source lab=… on loopback: read and search open, writes refused, the federated base, said at start-up', async (t) => {
  const ehr = await sandbox(t, { seed: 'a' });
  const lab = await sandbox(t, { seed: 'b' });
  const run = startCli(t, ['serve', '--source', `ehr=${ehr.connectionString()}`, '--source', `lab=${lab.connectionString()}`, '--port', '0']);
  const serving = (await waitServing(run)) as unknown as { gateway: string; serves: { path: string; component: string }[] };
  assert.deepEqual(serving.serves.filter((s) => s.component === 'FHIRFacade').map((s) => s.path), ['/fhir/ehr', '/fhir/lab', '/fhir/all']);
  const patient = await fetch(`${serving.gateway}/ehr/Patient/a-patient-1`);
  assert.equal(patient.status, 200);
  assert.equal(((await patient.json()) as { id: string }).id, 'a-patient-1');
  const write = await fetch(`${serving.gateway}/lab/Patient`, { method: 'POST', headers: { 'content-type': 'application/fhir+json' }, body: '{"resourceType":"Patient"}' });
  assert.equal(write.status, 403);
  const refusal = (await write.json()) as { issue: { diagnostics: string }[] };
  assert.match(refusal.issue[0]!.diagnostics, /open for read and search only; configure callers for writes \(docs\/cli\.md/, 'the refusal says what a write needs');
  const all = (await (await fetch(`${serving.gateway}/all/Patient?_count=100`)).json()) as { entry: unknown[] };
  assert.equal(all.entry.length, 9, 'five patients in one sandbox, four in the other');
  const openapi = (await (await fetch(new URL('/openapi.json', serving.gateway))).json()) as { paths: Record<string, unknown> };
  assert.ok(openapi.paths['/fhir/ehr/{type}/{id}'] !== undefined && openapi.paths['/fhir/lab/{type}'] !== undefined, '/docs shows the facade per source');
  assert.ok(openapi.paths['/fhir/all/{type}/{id}'] !== undefined && openapi.paths['/fhir/all/metadata'] !== undefined, 'and the federated base\'s read and statement');
  const federated = all as { entry: { fullUrl: string; resource: { id: string } }[] };
  const read = await fetch(federated.entry[0]!.fullUrl);
  assert.equal(((await read.json()) as { id: string }).id, federated.entry[0]!.resource.id, 'an entry\'s fullUrl reads at the federated base');
  assert.match(run.stdout(), /facade open for read and search without credentials/);
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});

test('serve --config with callers: a keyed caller may write, an unknown caller gets 401; beyond loopback without callers nothing is served', async (t) => {
  const ehr = await sandbox(t, { seed: 'a' });
  const dir = tempDir(t);
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({
    sources: { ehr: ehr.connectionString() },
    callers: [{ name: 'app', apiKey: '${APP_KEY}', sources: '*', scopes: 'system/*.cruds' }],
    facade: { federatedName: 'everything', limits: { ehr: { perSecond: 100 } } },
  }));
  const run = startCli(t, ['serve', '--config', join(dir, 'fhirgate.json'), '--port', '0'], { APP_KEY: 'app-key-0123456789abcdef' });
  const serving = (await waitServing(run)) as unknown as { gateway: string };
  const created = await fetch(`${serving.gateway}/ehr/Patient`, { method: 'POST', headers: { 'content-type': 'application/fhir+json', 'x-api-key': 'app-key-0123456789abcdef' }, body: '{"resourceType":"Patient"}' });
  assert.equal(created.status, 201);
  assert.match(created.headers.get('location') ?? '', new RegExp(`^${serving.gateway}/ehr/Patient/`));
  assert.equal((await fetch(`${serving.gateway}/ehr/Patient/a-patient-1`)).status, 401);
  assert.equal((await fetch(`${serving.gateway}/everything/Patient`, { headers: { 'x-api-key': 'app-key-0123456789abcdef' } })).status, 200);
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);

  const wide = startCli(t, ['serve', '--source', `ehr=${ehr.connectionString()}`, '--port', '0', '--host', '0.0.0.0']);
  const open = (await waitServing(wide)) as unknown as { gateway: string };
  assert.equal((await fetch(`${open.gateway.replace('0.0.0.0', '127.0.0.1')}/ehr/Patient/a-patient-1`)).status, 404, 'no facade route at all');
  assert.match(wide.stdout() + wide.stderr(), /facade serves nothing: no callers configured and listening beyond loopback/);
  wide.child.kill('SIGTERM');
  assert.equal(await wide.exited, 0);
});

test('a source named like a route of the prefix, or like the federated base, is refused at configuration', async (t) => {
  const ehr = await sandbox(t, { seed: 'a' });
  for (const name of ['metadata', 'transform', 'all']) {
    const run = startCli(t, ['serve', '--source', `${name}=${ehr.connectionString()}`, '--port', '0']);
    assert.notEqual(await run.exited, 0);
    assert.match(run.stderr(), new RegExp(`sources\\.${name}: the name is taken`));
  }
  const dir = tempDir(t);
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({ sources: { ehr: ehr.connectionString() }, callers: [{ name: 'x', apiKey: 'short', scopes: 'system/*.rs' }] }));
  const bad = startCli(t, ['serve', '--config', join(dir, 'fhirgate.json'), '--port', '0']);
  assert.notEqual(await bad.exited, 0);
  assert.match(bad.stderr(), /callers\[0\]/);
  assert.doesNotMatch(bad.stderr(), /short/, 'never the value');
});
