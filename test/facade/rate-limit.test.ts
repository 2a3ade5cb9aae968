// Upstreams are protected: a token bucket per source (and per caller), a cap on calls in flight, limits
// shared across replicas through a store; over them callers get 429 + Retry-After + RateLimit-*, and the
// upstream never sees the burst. An upstream 429 passes back with its Retry-After.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryStore } from '../../src/lib/key-value-store.js';
import type { FHIRFacadeOptions } from '../../src/facade/index.js';
import { countingUpstream } from '../support/counting-upstream.js';
import { facadeHarness } from '../support/facade-harness.js';

const KEY = 'burst-key-0123456789ab';

const options = (limits: FHIRFacadeOptions['limits'], extra: Partial<FHIRFacadeOptions> = {}): FHIRFacadeOptions => ({ callers: [{ name: 'burst', apiKey: KEY, sources: '*', scopes: 'system/*.rs' }], limits, ...extra });
const read = (prefix: string) => fetch(`${prefix}/up/Patient/1`, { headers: { 'x-api-key': KEY } });

test('a burst of 40 against a source limited to 5/s: the upstream sees at most the rate, the rest get 429 with Retry-After and RateLimit-*', async (t) => {
  const up = await countingUpstream(t);
  const h = await facadeHarness(t, { up: up.cs }, options({ up: { perSecond: 5, burst: 5 } }), [KEY]);
  const started = Date.now();
  const answers = await Promise.all(Array.from({ length: 40 }, () => read(h.prefix)));
  const elapsedSeconds = (Date.now() - started) / 1000;
  const ok = answers.filter((r) => r.status === 200);
  const refused = answers.filter((r) => r.status === 429);
  assert.equal(ok.length + refused.length, 40);
  assert.ok(up.state.count <= 5 + Math.ceil(elapsedSeconds * 5), `upstream saw ${up.state.count} in ${elapsedSeconds}s`);
  assert.equal(up.state.count, ok.length, 'every refusal was answered by the facade');
  const r = refused[0]!;
  assert.ok(Number(r.headers.get('retry-after')) >= 1);
  assert.equal(r.headers.get('ratelimit-limit'), '5');
  assert.equal(r.headers.get('ratelimit-remaining'), '0');
  assert.equal(((await r.json()) as any).issue[0].code, 'throttled');
  assert.equal(ok[0]!.headers.get('ratelimit-limit'), '5');
  await Promise.all(answers.filter((a) => !a.bodyUsed).map((a) => a.arrayBuffer()));
});

test('a cap on calls in flight: the rest are refused at once', async (t) => {
  const up = await countingUpstream(t);
  let release!: () => void;
  up.state.hold = new Promise<void>((resolve) => (release = resolve));
  const h = await facadeHarness(t, { up: up.cs }, options({ '*': { maxInFlight: 2 } }), [KEY]);
  const pending = Array.from({ length: 6 }, () => read(h.prefix));
  let refusedEarly = 0;
  await new Promise<void>((resolve) => pending.forEach((p) => void p.then((r) => r.status === 429 && ++refusedEarly === 4 && resolve())));
  assert.equal(up.state.inFlight, 2, 'four refused while the upstream still held two');
  release();
  const statuses = (await Promise.all(pending)).map((r) => r.status).sort();
  assert.deepEqual(statuses, [200, 200, 429, 429, 429, 429]);
  assert.equal(up.state.maxInFlight, 2);
});

test('an upstream 429 passes back with its Retry-After; a caller\'s own rate applies on top', async (t) => {
  const up = await countingUpstream(t);
  up.state.throttle = true;
  const h = await facadeHarness(t, { up: up.cs }, { callers: [{ name: 'burst', apiKey: KEY, sources: '*', scopes: 'system/*.rs', rate: { perSecond: 1, burst: 2 } }] }, [KEY]);
  const res = await read(h.prefix);
  assert.equal(res.status, 429);
  assert.equal(res.headers.get('retry-after'), '7');
  await res.arrayBuffer();
  up.state.throttle = false;
  const statuses = (await Promise.all([read(h.prefix), read(h.prefix), read(h.prefix)])).map((r) => r.status);
  assert.equal(statuses.filter((s) => s === 429).length >= 1, true, `the caller's rate refused some: ${statuses}`);
});

test('two replicas sharing a store share one limit', async (t) => {
  const up = await countingUpstream(t);
  const store = new MemoryStore();
  const a = await facadeHarness(t, { up: up.cs }, options({ up: { perSecond: 4 } }, { limitStore: store }), [KEY]);
  const b = await facadeHarness(t, { up: up.cs }, options({ up: { perSecond: 4 } }, { limitStore: store }), [KEY]);
  const started = Date.now();
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => read(i % 2 === 0 ? a.prefix : b.prefix)));
  const seconds = Math.floor(Date.now() / 1000) - Math.floor(started / 1000) + 1;
  assert.ok(up.state.count <= 4 * seconds, `upstream saw ${up.state.count} over ${seconds} window(s)`);
  assert.ok(answers.some((r) => r.status === 429));
  await Promise.all(answers.map((r) => r.arrayBuffer()));
});
