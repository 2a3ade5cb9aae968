import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { createServiceAPI } from '../../src/host/index.js';
import { sandbox as testSandbox } from '../support/sandbox.js';

test('getPoolStatus() is camelCase; the HTTP status bodies keep snake_case for the same numbers', async (t) => {
  const sandbox = await testSandbox(t);
  const gw = new AsyncFHIRGateway({ maxConnections: 7, maxKeepaliveConnections: 3, keepaliveExpiry: 2, events: false });
  gw.addSource('s', sandbox.connectionString());
  await gw.search('Patient', { _count: 1 }, 's');
  const app = createServiceAPI({ apiKeys: [], enableEvents: false });
  app.registerGateway(gw);
  const server = await app.listen(0, '127.0.0.1');
  t.after(() => app.close());
  const address = server.address();
  assert.ok(typeof address === 'object' && address !== null);
  const base = `http://127.0.0.1:${address.port}`;

  const status = gw.getPoolStatus();
  assert.deepEqual(status.limits, { maxConnections: 7, maxKeepaliveConnections: 3, keepaliveExpiry: 2 });
  assert.equal(status.sources.s?.requests, 1);
  const own = (await (await fetch(`${base}/fhir/status`)).json()) as any;
  assert.deepEqual(own.connection_pool.limits, { max_connections: 7, max_keepalive_connections: 3, keepalive_expiry: 2 });
  assert.equal(own.connection_pool.sources.s.requests, 1);
  const host = (await (await fetch(`${base}/gateway/status`)).json()) as any;
  assert.deepEqual(host.gateways.AsyncFHIRGateway.connection_pool.limits, { max_connections: 7, max_keepalive_connections: 3, keepalive_expiry: 2 });
  assert.ok(!JSON.stringify(host).includes('maxConnections'));
});
