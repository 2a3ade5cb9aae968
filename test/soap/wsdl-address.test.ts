/**
 * The WSDL's `soap:address` (issue 13, item 4): never the caller's `Host` header, unless the host trusts
 * its proxy and allows that host; otherwise the service's or the host's `publicUrl`, else the listening
 * address.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { ServiceAPIOptions } from '../../src/host/index.js';
import { NoteReaderService } from '../../src/soap/service.js';
import type { NoteReaderServiceOptions } from '../../src/soap/types.js';
import { call } from '../support/host-helpers.js';
import { child } from '../../src/soap/xml-tree.js';
import { parse } from '../support/soap-client.js';
import { startApp } from '../support/serve.js';

async function wsdlAddress(t: TestContext, host: ServiceAPIOptions, service: NoteReaderServiceOptions, headers: Record<string, string>) {
  const { base } = await startApp(t, host, (app) => app.registerService(new NoteReaderService(service).method('ProcessDocument', () => 'ok')));
  const res = await call(base, '/notereader?wsdl', { headers });
  assert.equal(res.status, 200);
  return { base, location: child(child(child(parse(res.text), 'service'), 'port'), 'address')?.attributes.location };
}

const EVIL = { host: 'evil.example:9999', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };

test('a hostile Host header does not reach the WSDL: the listening address is written', async (t) => {
  const { base, location } = await wsdlAddress(t, {}, {}, EVIL);
  assert.equal(location, `${base}/notereader`);
});

test('the service publicUrl is written as is; else the host publicUrl plus the mount path', async (t) => {
  assert.equal((await wsdlAddress(t, { publicUrl: 'https://gw.example.org' }, { publicUrl: 'https://soap.example.org/nr/' }, EVIL)).location, 'https://soap.example.org/nr');
  assert.equal((await wsdlAddress(t, { publicUrl: 'https://gw.example.org/base' }, {}, EVIL)).location, 'https://gw.example.org/base/notereader');
  assert.throws(() => new NoteReaderService({ publicUrl: 'ftp://x' }), { name: 'TypeError', message: /publicUrl/ });
});

test('behind a trusted proxy, X-Forwarded-Host is used for an allowed host only', async (t) => {
  const proxy = { trustProxy: true, allowedHosts: ['ehr-gw.example.org'] };
  const allowed = await wsdlAddress(t, proxy, {}, { host: 'inner', 'x-forwarded-host': 'ehr-gw.example.org', 'x-forwarded-proto': 'https' });
  assert.equal(allowed.location, 'https://ehr-gw.example.org/notereader');
  const refused = await wsdlAddress(t, proxy, {}, EVIL);
  assert.equal(refused.location, `${refused.base}/notereader`);
});
