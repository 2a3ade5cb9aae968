import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FHIRGateway } from '../../../src/gateway/index.js';
import { sandbox } from '../../support/sandbox.js';

test('sameThreadOrigins must be an iterable of origins', () => {
  for (const bad of ['http://127.0.0.1:1', 5, null, {}]) {
    assert.throws(() => new FHIRGateway({ sameThreadOrigins: bad as never }), { name: 'TypeError', message: /^options\.sameThreadOrigins must be/ });
  }
});

test('sameThreadOrigins is read at each call: a server added to the Set later is refused with ERR_DEADLOCK, no request sent', async (t) => {
  const sameThread = new Set<string>();
  const gw = new FHIRGateway({ events: false, sameThreadOrigins: sameThread });
  t.after(() => gw.close());
  const local = await sandbox(t);
  gw.addSource('local', local.connectionString());
  sameThread.add(local.origin.replace('127.0.0.1', 'localhost'));
  assert.throws(() => gw.read('Patient', 'x', 'local'), { code: 'ERR_DEADLOCK' });
  assert.equal(local.stats.requests.total, 0);
});
