import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Patient } from '../../src/fhir/index.js';
import { startServer } from '../support/test-server.js';
import { gateway } from '../support/gateway-fixtures.js';

test('create: a Location that is not a URL is ERR_FHIR_RESPONSE, and a blank one counts as none', async (t) => {
  let location: string | undefined;
  const srv = await startServer(t, (req, res) => {
    if (req.method === 'POST') {
      res.writeHead(201, location === undefined ? {} : { location });
      res.end();
    } else res.end(JSON.stringify({ resourceType: 'Patient', id: 'p1' }));
  });
  const { gw } = gateway(t);
  gw.addSource('s', `fhir://${srv.url.slice(7)}/r4`);
  location = 'http://[not-a-host/Patient/1';
  await assert.rejects(gw.create({ resourceType: 'Patient' } as Patient), { code: 'ERR_FHIR_RESPONSE', status: 201, message: /Location that is not a URL/ });
  location = '   ';
  await assert.rejects(gw.create({ resourceType: 'Patient' } as Patient), { code: 'ERR_FHIR_RESPONSE', message: /neither the resource nor a Location/ });
  location = ' Patient/p1/_history/1 ';
  assert.equal((await gw.create({ resourceType: 'Patient' } as Patient)).id, 'p1');
  assert.equal(srv.seen.at(-1)?.url, '/r4/Patient/p1/_history/1');
  assert.equal(srv.seen.filter((s) => s.method === 'GET').length, 1);
});
