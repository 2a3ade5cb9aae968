// The crosswalk in the shared store (issue 35 item 2, "in the shared store (Redis) when one is
// configured, so that replicas agree"): two gateways with their facades, each its own Redis client of
// one real redis-server (Debian's, on a free loopback port), over the same sandboxes. What the first
// resolved for an identity-bound caller, the second takes from Redis without asking any source.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { APIKeyCaller } from '../../src/facade/index.js';
import { redisStore } from '../../src/redis/index.js';
import { startRedis } from '../support/bus-servers.js';
import { facadeHarness } from '../support/facade-harness.js';
import { until } from '../support/test-server.js';
import { connectRedis } from '../redis/replicas.js';
import { ANN, fourSources, get, ids } from './identity-fixtures.js';

const KEY = 'ann-portal-key-0123456789';
const callers: APIKeyCaller[] = [{ name: 'ann', apiKey: KEY, sources: '*', scopes: 'patient/*.rs', patient: { identifier: ANN } }];

test('two gateways sharing a Redis store agree on the crosswalk: the second answers from it (cached) without asking the sources', async (t) => {
  const url = await startRedis(t);
  if (url === undefined) return;
  const { sandboxes, sources, identity } = await fourSources(t);
  const [one, two] = [await connectRedis(t, url, { reconnect: false }), await connectRedis(t, url, { reconnect: false })];
  const first = await facadeHarness(t, sources, { callers }, [KEY], { identity, tokenStore: redisStore(one) });
  const second = await facadeHarness(t, sources, { callers }, [KEY], { identity, tokenStore: redisStore(two) });
  const searches = () => Object.values(sandboxes).map((sb) => sb.stats.requests.byKind.search ?? 0);

  const before = searches();
  assert.deepEqual(ids((await get(`${first.prefix}/all/Patient`, KEY)).body), ['Patient/ehr.e-ann', 'Patient/lab.l-ann', 'Patient/research.r-ann']);
  const resolvedBy = searches().map((n, i) => n - before[i]!);
  assert.ok(resolvedBy.slice(0, 3).every((n) => n >= 2), 'the first gateway resolved (a Patient search per source) and searched');
  const stored = (await one.keys('fhirgate:identity:*')).map(String);
  assert.equal(stored.length, 1, 'the crosswalk is in Redis');
  assert.ok(Number(await one.pTTL(stored[0]!)) > 0 && Number(await one.pTTL(stored[0]!)) <= 300_000, 'kept for ttlSeconds at most');

  const between = searches();
  const atSecond = await get(`${second.prefix}/all/Patient`, KEY);
  assert.deepEqual(ids(atSecond.body), ['Patient/ehr.e-ann', 'Patient/lab.l-ann', 'Patient/research.r-ann']);
  // The second gateway's only Patient searches are the caller's own (one per source it holds Ann in): none to resolve.
  assert.deepEqual(searches().map((n, i) => n - between[i]!), [1, 1, 1, 0]);
  const direct = await second.gateway.resolvePatient({ identifier: ANN }, { sources: ['ehr', 'lab', 'research', 'portal'] });
  assert.equal(direct.cached, true);
  assert.deepEqual(direct.outcomes.map((o) => `${o.source}:${o.status === 'found' ? o.id : o.status}`), ['ehr:e-ann', 'lab:l-ann', 'research:r-ann', 'portal:absent']);
  await until(() => second.audits.some((a) => a.entity.some((e: any) => e.role?.code === '24' && Buffer.from(e.query, 'base64').toString().endsWith('(cached)'))), 'the second gateway\'s resolution audited as cached');
});
