// `fhirgate serve` with `store.redis` in fhirgate.json: two serve processes over one Redis (Debian's
// redis-server on a free loopback port) share one rate limit per source (a burst across both reaches the
// upstream at most at the configured rate; the requests let through claimed their slots in Redis) and
// one access token per source (the token endpoint is asked once for both).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startRedis } from '../support/bus-servers.js';
import { countingUpstream } from '../support/counting-upstream.js';
import { startCli, tempDir, waitServing } from '../support/run-cli.js';
import { sandbox } from '../support/sandbox.js';
import { connectRedis } from './replicas.js';

const KEY = 'shared-rate-key-0123456789';
const RATE = 4;

test('two serve processes with store.redis share one rate per source and one token per source', async (t) => {
  const url = await startRedis(t);
  if (url === undefined) return;
  const redis = await connectRedis(t, url);
  const up = await countingUpstream(t);
  const ehr = await sandbox(t);
  const dir = tempDir(t);
  writeFileSync(join(dir, 'fhirgate.json'), JSON.stringify({
    sources: { up: up.cs, ehr: ehr.connectionString() },
    callers: [{ name: 'burst', apiKey: '${APP_KEY}', sources: '*', scopes: 'system/*.rs' }],
    facade: { limits: { up: { perSecond: RATE } } },
    store: { redis: '${REDIS_URL}', keyPrefix: 'gw-test:' },
  }));
  const env = { APP_KEY: KEY, REDIS_URL: url };
  const runs = [0, 1].map(() => startCli(t, ['serve', '--config', join(dir, 'fhirgate.json'), '--port', '0'], env));
  const [a, b] = (await Promise.all(runs.map(waitServing))) as unknown as Array<{ gateway: string; store: string }>;
  assert.equal(a!.store, 'redis', 'the serving line says a shared store is used, never its URL');
  assert.ok(!runs.some((r) => r.stdout().includes(url)), 'the Redis URL is never logged');
  const headers = { 'x-api-key': KEY };

  assert.equal((await fetch(`${a!.gateway}/ehr/Patient/a-patient-1`, { headers })).status, 200);
  while ((await redis.keys('gw-test:fhirgate:token:*')).length === 0) await sleep(10);
  assert.equal((await fetch(`${b!.gateway}/ehr/Patient/a-patient-1`, { headers })).status, 200);
  assert.equal(ehr.stats.requests.byKind.token, 1, 'the second process took the first one\'s token from Redis');

  const started = Date.now();
  const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => fetch(`${(i % 2 === 0 ? a : b)!.gateway}/up/Patient/1`, { headers })));
  const windows = Math.floor(Date.now() / 1000) - Math.floor(started / 1000) + 1;
  const statuses = answers.map((r) => r.status);
  await Promise.all(answers.map((r) => r.arrayBuffer()));
  assert.equal(statuses.filter((s) => s === 200).length, up.state.count, 'every refusal was answered by a facade, not the upstream');
  assert.ok(up.state.count <= RATE * windows, `the upstream saw ${up.state.count} in ${windows} one-second window(s)`);
  assert.ok(statuses.includes(429) || RATE * windows >= statuses.length, `no 429 though ${statuses.length} came in ${windows} window(s)`);
  // Slots live 2 s: on a loaded machine the first ones may be gone by now, never more than were let through.
  const slots = (await redis.keys('gw-test:fhirgate:rate:source:up:*')).map(String);
  assert.ok(slots.length >= 1 && slots.length <= up.state.count, `${slots.length} slot(s) in Redis for ${up.state.count} request(s) let through`);
  const perSecond = new Map<string, number>();
  for (const slot of slots) {
    const second = slot.split(':').at(-2)!;
    perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
  }
  assert.ok([...perSecond.values()].every((n) => n <= RATE), JSON.stringify([...perSecond]));
  for (const run of runs) run.child.kill('SIGTERM');
  assert.deepEqual(await Promise.all(runs.map((r) => r.exited)), [0, 0]);
});
