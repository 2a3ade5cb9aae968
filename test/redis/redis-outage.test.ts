import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import type { KeyValueStore } from '../../src/lib/key-value-store.js';
import { redisStore } from '../../src/redis/index.js';
import { startCdsClient, type CdsClient } from '../support/cds-client.js';
import { startRedisServer } from '../support/bus-servers.js';
import { sandbox as testSandbox } from '../support/sandbox.js';
import { callCds, CDS_AUDIENCE, cdsReplica, connectRedis, type RedisClient } from './replicas.js';

/**
 * Long enough that a command Redis answered is not timed out by an event-loop stall of the loaded test
 * process (the timer runs before the answer's I/O callback): the phases before and after the outage need
 * every CDS call to answer 200. A refusal during the hang waits for one of these (checked below).
 */
const COMMAND_TIMEOUT_MS = 1500;
/**
 * Generous on a loaded machine (reads alone took up to 2 s there; a read waiting on a refresh during the
 * hang waits for one command time-out, 1.5 s, before the replica fetches on its own), yet well below
 * the 8 s hang: without the time-out a hung Redis holds a CDS call and a token refresh (and every read
 * waiting on it) until it wakes.
 */
const BOUND_MS = 5000;
const HANG_MS = 8000;

interface Replica {
  gw: AsyncFHIRGateway;
  store: KeyValueStore;
  cds: string;
  redis: RedisClient & { errors: string[] };
}

interface Phase {
  reads: number;
  readFailures: string[];
  slowestReadMs: number;
  cdsStatuses: number[];
  cdsCodes: string[];
  slowestCdsMs: number;
}

/** Reads (5 at a time per replica) and CDS calls (one per 100 ms per replica) for `ms`, timing each. */
async function load(replicas: Replica[], ehr: CdsClient, ms: number): Promise<Phase> {
  const phase: Phase = { reads: 0, readFailures: [], slowestReadMs: 0, cdsStatuses: [], cdsCodes: [], slowestCdsMs: 0 };
  const end = Date.now() + ms;
  const reader = async (gw: AsyncFHIRGateway) => {
    while (Date.now() < end) {
      const started = performance.now();
      try {
        await gw.read('Patient', 'p1');
        phase.reads += 1;
      } catch (err) {
        phase.readFailures.push(err instanceof Error ? err.message : String(err));
      }
      phase.slowestReadMs = Math.max(phase.slowestReadMs, performance.now() - started);
    }
  };
  const caller = async (url: string) => {
    while (Date.now() < end) {
      const started = performance.now();
      const r = await callCds(url, ehr.token(CDS_AUDIENCE));
      phase.slowestCdsMs = Math.max(phase.slowestCdsMs, performance.now() - started);
      phase.cdsStatuses.push(r.status);
      const body = (await r.json()) as { error?: { code: string } };
      if (body.error !== undefined) phase.cdsCodes.push(`${body.error.code} retry-after=${r.headers.get('retry-after')}`);
      await sleep(100);
    }
  };
  await Promise.all(replicas.flatMap((r) => [...Array.from({ length: 5 }, () => reader(r.gw)), caller(r.cds)]));
  return phase;
}

/** Waits (up to 10 s) until every replica's store answers a command again. */
async function ready(replicas: Replica[]): Promise<void> {
  const answers = (r: Replica) => r.store.get('probe').then(() => true, () => false);
  // Three answered rounds in a row: a Redis let go after a hang first works through what queued up meanwhile,
  // and on a loaded machine one round can answer while the next still waits past the command time-out.
  for (let i = 0, inARow = 0; i < 200; i++) {
    inARow = (await Promise.all(replicas.map(answers))).every(Boolean) ? inARow + 1 : 0;
    if (inARow === 3) return;
    await sleep(50);
  }
  assert.fail('the stores did not answer again');
}

const tokenKeys = async (client: RedisClient) => (await client.keys('fhirgate:token:*')).filter((k) => !k.endsWith(':lock'));

async function setUp(t: TestContext) {
  const server = await startRedisServer(t);
  if (server === undefined) return undefined;
  // 2 s tokens: each replica refreshes (1.8 s) inside every phase, so the token store is asked during the outage.
  const sandbox = await testSandbox(t, { tokenLifetimeSeconds: 2, seed: [{ resourceType: 'Patient', id: 'p1' }] });
  const ehr = await startCdsClient(t);
  const replicas: Replica[] = [];
  for (let i = 0; i < 2; i++) {
    const redis = await connectRedis(t, server.url);
    const store = redisStore(redis, { commandTimeoutMs: COMMAND_TIMEOUT_MS });
    const gw = new AsyncFHIRGateway({ tokenStore: store, events: false });
    t.after(() => gw.close());
    gw.addSource('ehr', sandbox.connectionString());
    replicas.push({ gw, store, redis, cds: await cdsReplica(t, ehr.issuer, ehr.jwksUrl, store) });
  }
  return { server, sandbox, ehr, replicas };
}

function expectServing(phase: Phase, what: string): void {
  assert.deepEqual(phase.readFailures, [], `${what}: every read answered`);
  assert.ok(phase.reads > 0, `${what}: reads ran`);
  assert.ok(phase.slowestReadMs < BOUND_MS, `${what}: slowest read ${phase.slowestReadMs.toFixed(0)} ms`);
}

function expectRefused(phase: Phase, what: string): void {
  assert.ok(phase.cdsStatuses.length > 0 && phase.cdsStatuses.every((s) => s === 503), `${what}: CDS statuses ${phase.cdsStatuses.join(',')}`);
  assert.ok(phase.cdsCodes.every((c) => c === 'ERR_STORE_UNAVAILABLE retry-after=1'), phase.cdsCodes.join(','));
  assert.ok(phase.slowestCdsMs < BOUND_MS, `${what}: slowest CDS refusal ${phase.slowestCdsMs.toFixed(0)} ms`);
}

test('Redis stopped mid-load: reads go on (a token fetch per replica), CDS calls get a fast 503; Redis back: the store is used again', async (t) => {
  const set = await setUp(t);
  if (set === undefined) return;
  const { server, sandbox, ehr, replicas } = set;
  const clients = replicas.map((r) => r.redis);

  const before = await load(replicas, ehr, 1000);
  expectServing(before, 'before');
  assert.ok(before.cdsStatuses.every((s) => s === 200), `before: ${before.cdsStatuses.join(',')}`);

  await server.stop();
  const fetchesBefore = sandbox.stats.tokenRequests;
  const down = await load(replicas, ehr, 2500);
  expectServing(down, 'Redis stopped');
  expectRefused(down, 'Redis stopped');
  // Each replica refreshed on its own (no shared lock to wait on), about once per 1.8 s.
  const outageFetches = sandbox.stats.tokenRequests - fetchesBefore;
  assert.ok(outageFetches >= 2 && outageFetches <= 8, `token requests while Redis was down: ${outageFetches}`);
  assert.ok(clients.every((c) => c.errors.length > 0), 'each client reported the outage on its error listener');

  await server.start();
  await ready(replicas);
  // 2 s tokens live in the store until their refresh time: look for the shared one while the load runs.
  let sharedAgain = false;
  const watch = (async () => {
    for (const end = Date.now() + 2500; Date.now() < end && !sharedAgain; await sleep(50)) sharedAgain = (await tokenKeys(clients[0]!)).length === 1;
  })();
  const back = await load(replicas, ehr, 2500);
  await watch;
  expectServing(back, 'Redis back');
  assert.ok(back.cdsStatuses.every((s) => s === 200), `Redis back: ${back.cdsStatuses.join(',')}`);
  const token = ehr.token(CDS_AUDIENCE);
  assert.equal((await callCds(replicas[0]!.cds, token)).status, 200);
  assert.equal((await callCds(replicas[1]!.cds, token)).status, 401, 'a replay across replicas is refused again');
  assert.ok(sharedAgain, 'a refreshed token was shared again');
  t.diagnostic(`before: slowest read ${before.slowestReadMs.toFixed(0)} ms over ${before.reads} reads, slowest CDS call ${before.slowestCdsMs.toFixed(0)} ms; back: ${back.slowestReadMs.toFixed(0)} ms, ${back.slowestCdsMs.toFixed(0)} ms`);
  t.diagnostic(`stopped: slowest read ${down.slowestReadMs.toFixed(0)} ms over ${down.reads} reads, slowest CDS refusal ${down.slowestCdsMs.toFixed(0)} ms over ${down.cdsStatuses.length} calls, ${outageFetches} token requests`);
});

test('Redis hung (SIGSTOP) mid-load: store calls end at commandTimeoutMs, reads go on and CDS calls get a 503 within it', async (t) => {
  const set = await setUp(t);
  if (set === undefined) return;
  const { server, ehr, replicas } = set;
  expectServing(await load(replicas, ehr, 500), 'before');

  server.pause();
  const hung = await load(replicas, ehr, HANG_MS);
  server.resume();
  expectServing(hung, 'Redis hung');
  expectRefused(hung, 'Redis hung');
  // A refusal waits for one command time-out (plus the JWT check), not for Redis.
  assert.ok(hung.slowestCdsMs >= COMMAND_TIMEOUT_MS, `the refusal waited for the time-out: ${hung.slowestCdsMs.toFixed(0)} ms`);

  await ready(replicas);
  const back = await load(replicas, ehr, 1000);
  expectServing(back, 'Redis answering again');
  assert.ok(back.cdsStatuses.every((s) => s === 200), `after: ${back.cdsStatuses.join(',')}`);
  t.diagnostic(`hung: slowest read ${hung.slowestReadMs.toFixed(0)} ms over ${hung.reads} reads, slowest CDS refusal ${hung.slowestCdsMs.toFixed(0)} ms over ${hung.cdsStatuses.length} calls`);
});
