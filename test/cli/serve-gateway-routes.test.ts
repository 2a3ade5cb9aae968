// `fhirgate serve` with callers (and no apiKeys) holds the gateway's own routes to them: transform and
// aggregate need an identified caller that may read the type from every source named (401 with
// `WWW-Authenticate: Bearer` without credentials, 403 for a patient-bound caller), and `<prefix>/status`
// and `/gateway/status` show upstream origins only to a caller with `sources: '*'` and no patient.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { sandbox } from '../support/sandbox.js';
import { startCli, tempDir, waitServing } from '../support/run-cli.js';

const ADMIN = 'admin-key-0123456789abcdef';
const PORTAL = 'portal-key-0123456789abcdef';
const LAB_ONLY = 'lab-only-key-0123456789abcdef';

test('serve with callers and no apiKeys: transform, aggregate and the status routes are held to the callers', async (t) => {
  const ehr = await sandbox(t, { seed: 'a' });
  const lab = await sandbox(t, { seed: 'b' });
  const dir = tempDir(t);
  writeFileSync(join(dir, 'handlers.mjs'), `export default function setup(gw) {
  gw.transform('Patient', (id, source) => gw.read('Patient', id, source));
  gw.aggregate('Patient', async (id, sources) => ({ resourceType: 'Bundle', type: 'collection', entry: [{ resource: await gw.read('Patient', id, (sources ?? ['ehr'])[0]) }] }));
}\n`);
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({
    sources: { ehr: ehr.connectionString(), lab: lab.connectionString() },
    gateway: { module: './handlers.mjs' },
    callers: [
      { name: 'admin', apiKey: ADMIN, sources: '*', scopes: 'system/*.rs' },
      { name: 'portal', apiKey: PORTAL, sources: ['ehr'], scopes: 'patient/*.rs', patient: 'a-patient-1' },
      { name: 'labonly', apiKey: LAB_ONLY, sources: ['lab'], scopes: 'system/*.rs' },
    ],
  }));
  const run = startCli(t, ['serve', '--config', join(dir, 'fhirgate.json'), '--port', '0']);
  const serving = await waitServing(run);
  const base = serving.gateway;
  const origin = new URL(base).origin;
  const key = (k: string) => ({ 'x-api-key': k });

  const anonymous = await fetch(`${base}/transform/Patient/a-patient-2?source=ehr`);
  assert.equal(anonymous.status, 401, 'no credentials: refused');
  assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer');
  assert.doesNotMatch(await anonymous.text(), /a-patient-2"/);
  assert.equal((await fetch(`${base}/transform/Patient/a-patient-2?source=ehr`, { headers: key('wrong-key-0123456789abcdef') })).status, 401);
  const anonymousAggregate = await fetch(`${base}/aggregate/Patient?patient_id=a-patient-2&sources=ehr`);
  assert.equal(anonymousAggregate.status, 401);
  await anonymousAggregate.arrayBuffer();

  const portal = await fetch(`${base}/transform/Patient/a-patient-2?source=ehr`, { headers: key(PORTAL) });
  assert.equal(portal.status, 403, 'a patient-bound caller is refused at the handler routes');
  assert.match(await portal.text(), /bound to a patient/);
  assert.equal((await fetch(`${base}/ehr/Patient/a-patient-2`, { headers: key(PORTAL) })).status, 404, 'as at the facade');

  assert.equal((await fetch(`${base}/transform/Patient/a-patient-2?source=ehr`, { headers: key(LAB_ONLY) })).status, 403, 'a source it may not use');
  assert.equal((await fetch(`${base}/transform/Patient/a-patient-2`, { headers: key(LAB_ONLY) })).status, 403, 'no source named: every source, which it may not use');
  assert.equal((await fetch(`${base}/aggregate/Patient?patient_id=a-patient-2&sources=lab,ehr`, { headers: key(LAB_ONLY) })).status, 403);

  const admin = await fetch(`${base}/transform/Patient/a-patient-2?source=ehr`, { headers: key(ADMIN) });
  assert.equal(admin.status, 200);
  assert.equal(((await admin.json()) as { id: string }).id, 'a-patient-2');
  const aggregated = await fetch(`${base}/aggregate/Patient?patient_id=a-patient-2&sources=ehr`, { headers: key(ADMIN) });
  assert.equal(aggregated.status, 200);
  assert.equal(((await aggregated.json()) as { resourceType: string }).resourceType, 'Bundle');

  const upstreams = [new URL(ehr.fhirBase).host, new URL(lab.fhirBase).host];
  for (const path of [`${base}/status`, `${origin}/gateway/status`]) {
    for (const headers of [{}, key(PORTAL), key(LAB_ONLY)]) {
      const res = await fetch(path, { headers });
      assert.equal(res.status, 200, path);
      const text = await res.text();
      for (const host of upstreams) assert.ok(!text.includes(host), `${path} shows no upstream origin to ${JSON.stringify(headers)}`);
      assert.match(text, /"ehr"/, 'the same document, source names kept');
    }
    assert.equal((await fetch(path, { headers: key('wrong-key-0123456789abcdef') })).status, path.endsWith('/gateway/status') ? 200 : 401);
  }
  const full = await (await fetch(`${base}/status`, { headers: key(ADMIN) })).text();
  for (const host of upstreams) assert.ok(full.includes(host), 'an unrestricted caller sees the origins');

  assert.match(run.stdout(), /gateway routes held to callers/);
  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0);
});
