import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServiceAPI } from '../../src/host/index.js';
import type { ServiceAPI } from '../../src/host/index.js';
import { startHaproxy } from '../support/haproxy.js';
import { systemBinary } from '../support/system-binary.js';
import { captureLogger } from '../support/logger.js';

// HAProxy checks every 100 ms and takes a replica out after 2 failed checks; a drain of 6 s leaves it
// thirty times the time it needs (and the test its stats reads after that, on a loaded machine), and the
// test checks that the replica was still listening when it went.
async function replica(name: string, port = 0): Promise<{ app: ServiceAPI; port: number }> {
  const app = createServiceAPI({ apiKeys: [], logger: captureLogger(), readinessDrainMs: 6000 });
  app.get('/who', () => ({ replica: name }));
  const server = await app.listen(port);
  const address = server.address();
  return { app, port: typeof address === 'object' && address !== null ? address.port : 0 };
}

function get(url: string, agent: Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

test('behind HAProxy: a replica that drains is taken out by its /health/ready, comes back after a restart, and no request fails', async (t) => {
  const bin = systemBinary(t, 'haproxy', 'haproxy');
  if (bin === undefined) return;
  let stop = false;
  t.after(() => void (stop = true)); // a failed assertion must not leave the load running
  let a = await replica('a');
  const b = await replica('b');
  t.after(() => Promise.all([a.app.close({ readinessDrainMs: 0 }), b.app.close({ readinessDrainMs: 0 })]));
  const lb = await startHaproxy(bin, [{ name: 'a', port: a.port }, { name: 'b', port: b.port }]);
  t.after(() => lb.close());
  await Promise.all([lb.waitForStatus('a', 'UP'), lb.waitForStatus('b', 'UP')]);

  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  t.after(() => agent.destroy());
  let phase: 'both' | 'draining' | 'b-only' | 'restarting' | 'back' = 'both';
  const seen = { both: new Set<string>(), draining: new Set<string>(), 'b-only': new Set<string>(), restarting: new Set<string>(), back: new Set<string>() };
  const failures: string[] = [];
  let answered = 0;
  const load = Array.from({ length: 8 }, async () => {
    while (!stop) {
      const at = phase;
      try {
        const res = await get(`${lb.url}/who`, agent);
        if (res.status !== 200) failures.push(`status ${res.status}`);
        else {
          answered += 1;
          seen[at].add((JSON.parse(res.body) as { replica: string }).replica);
        }
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
  });
  const until = async (done: () => boolean) => {
    while (!done()) await sleep(10);
  };
  await until(() => seen.both.size === 2);

  phase = 'draining';
  let closed = false;
  const closing = a.app.close().then(() => (closed = true));
  await lb.waitForStatus('a', 'DOWN');
  let down = (await lb.stats())['a']!;
  // HAProxy can show the DOWN state a moment before the failed check's code (0 until then): read it again.
  for (let i = 0; i < 50 && down.checkCode === 0 && !closed; i++) {
    await sleep(20);
    down = (await lb.stats())['a']!;
  }
  assert.deepEqual([down.checkStatus, down.checkCode, closed], ['L7STS', 503, false], 'taken out by /health/ready answering 503 while a still listens');
  await closing;
  phase = 'b-only';
  const after = answered;
  await until(() => answered >= after + 50);

  phase = 'restarting';
  a = await replica('a', a.port);
  await lb.waitForStatus('a', 'UP');
  phase = 'back';
  await until(() => seen.back.has('a'));
  stop = true;
  await Promise.all(load);

  assert.deepEqual(failures, []);
  assert.deepEqual([...seen['b-only']], ['b'], 'nothing reaches a closed replica');
  assert.deepEqual([...seen.back].sort(), ['a', 'b']);
  const stats = await lb.stats();
  assert.equal(stats['a']!.hrsp5xx + stats['b']!.hrsp5xx, 0);
});
