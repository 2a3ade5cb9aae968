import assert from 'node:assert/strict';
import http from 'node:http';
import { syncBuiltinESMExports } from 'node:module';
import { test } from 'node:test';
import { AgentPool } from '../../src/http/agent-pool.js';
import { startServer } from '../support/test-server.js';

test('a tracing wrapper of http.request that copies options.headers to add its own (as OpenTelemetry does) still sends the request headers', async (t) => {
  const srv = await startServer(t, (_req, res) => res.end('ok'));
  const original = http.request;
  const wrapped = ((options: http.RequestOptions, ...rest: unknown[]) => {
    const copy = { ...options, headers: Object.assign({}, options.headers, { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' }) };
    return (original as (...args: unknown[]) => http.ClientRequest)(copy, ...rest);
  }) as typeof http.request;
  http.request = wrapped;
  syncBuiltinESMExports();
  t.after(() => {
    http.request = original;
    syncBuiltinESMExports();
  });
  const pool = new AgentPool();
  t.after(() => pool.close());
  await pool.request(`${srv.url}/p`, { headers: { Accept: 'application/fhir+json', Authorization: 'Bearer t' } });
  const seen = srv.seen[0]!;
  assert.equal(seen.headers.traceparent, '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
  assert.equal(seen.headers.accept, 'application/fhir+json');
  assert.equal(seen.headers.authorization, 'Bearer t');
  assert.equal(seen.headers.host, new URL(srv.url).host);
  assert.equal(Object.keys(seen.headers).some((name) => /^\d+$/.test(name)), false);
});
