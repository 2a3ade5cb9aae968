import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildApp } from '../../src/cli/build-app.js';
import { validateConfig } from '../../src/cli/index.js';
import { sandbox } from '../support/sandbox.js';
import { captureLogger } from '../support/logger.js';

const MRN = 'http://hospital.example.org/mrn';
const ctx = { dir: '/', env: {} };

test('fhirgate.json "identity" is checked like the gateway option, and its authorities must be sources of the file', () => {
  const config = validateConfig({ sources: { ehr: 'fhir://127.0.0.1:9/fhir/' }, identity: { systems: [MRN], authorities: { [MRN]: ['ehr'] }, ttlSeconds: 60 } }, ctx);
  assert.deepEqual(config.identity, { systems: [MRN], authorities: { [MRN]: ['ehr'] }, ttlSeconds: 60 });
  assert.equal(validateConfig({}, ctx).identity, undefined);
  assert.throws(() => validateConfig({ identity: { sytems: [MRN] } }, ctx), { code: 'ERR_CONFIG', message: 'identity.sytems is not an option; did you mean `systems`?' });
  assert.throws(() => validateConfig({ identity: { systems: ['mrn'] } }, ctx), { code: 'ERR_CONFIG', message: /^identity.systems\[0\] must be an absolute URI/ });
  assert.throws(() => validateConfig({ identity: { systems: [MRN], ttlSeconds: -5 } }, ctx), { code: 'ERR_CONFIG', message: /^identity.ttlSeconds must be/ });
  assert.throws(() => validateConfig({ sources: { ehr: 'fhir://127.0.0.1:9/fhir/' }, identity: { systems: [MRN], authorities: { [MRN]: ['ehr', 'lba'] } } }, ctx), {
    code: 'ERR_CONFIG',
    message: `identity.authorities["${MRN}"]: names a source that "sources" does not define ("lba")`,
  });
});

test('the app built from a config resolves patients with its identity settings', async (t) => {
  const sb = await sandbox(t, { seed: [{ resourceType: 'Patient', id: 'p-9', identifier: [{ system: MRN, value: '9' }] }] });
  const config = validateConfig({ sources: { ehr: sb.connectionString() }, identity: { systems: [MRN] } }, ctx);
  const built = await buildApp(config, { logger: captureLogger() });
  t.after(() => Promise.all([built.app.close(), built.gateway.close()]));
  const r = await built.gateway.resolvePatient({ identifier: `${MRN}|9` });
  assert.deepEqual(r.outcomes, [{ source: 'ehr', status: 'found', id: 'p-9', seeAlso: [] }]);
});
