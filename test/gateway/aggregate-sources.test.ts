import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FHIRHTTPError, FhirgateError } from '../../src/errors.js';
import { aggregateSources, SOURCE_TAG_SYSTEM, type AggregateSourcesOptions } from '../../src/gateway/aggregate-sources.js';
import type { SearchParams } from '../../src/gateway/core/search-params.js';
import type { SearchingGateway } from '../../src/gateway/source-searches.js';
import type { Bundle, BundleEntry, Observation, OperationOutcome, ResourceType } from '../../src/fhir/index.js';

const obs = (id: string, extra: Partial<Observation> = {}): Observation => ({ resourceType: 'Observation', id, status: 'final', code: {}, ...extra });
const match = (resource: Observation): BundleEntry => ({ fullUrl: `http://x/Observation/${resource.id}`, resource, search: { mode: 'match' } });
const searchset = (entry: BundleEntry[]): Bundle => ({ resourceType: 'Bundle', type: 'searchset', entry });

type Behaviour = (signal: AbortSignal) => Bundle | Promise<Bundle>;

/** A gateway whose sources behave as told, recording every call. */
function fakeGateway(sources: Record<string, Behaviour>) {
  const calls: Array<{ type: ResourceType; params: SearchParams; source: string; signal: AbortSignal }> = [];
  const gw: SearchingGateway = {
    search(type, params, source, options) {
      calls.push({ type, params, source, signal: options.signal });
      const behaviour = sources[source];
      if (behaviour === undefined) throw new FhirgateError('ERR_UNKNOWN_SOURCE', `unknown source ${source}`);
      return behaviour(options.signal);
    },
  };
  return { gw, calls };
}

/** Never answers; rejects with ERR_ABORTED once its signal aborts, as the real gateway does. */
const hangs: Behaviour = (signal) =>
  new Promise((_, reject) => signal.addEventListener('abort', () => reject(new FhirgateError('ERR_ABORTED', 'aborted')), { once: true }));

const sourceOf = (entry: BundleEntry | undefined) =>
  entry?.resource?.meta?.tag?.filter((t) => t.system === SOURCE_TAG_SYSTEM).map((t) => t.code);

test('merges sources, tags each entry, dedupes per source, skips outcomes, reports failures and time-outs', async () => {
  const shared = obs('shared');
  const epicBundle = searchset([
    match(obs('a')),
    match(shared),
    match(shared),
    { resource: { resourceType: 'OperationOutcome', issue: [{ severity: 'warning', code: 'informational' }] }, search: { mode: 'outcome' } },
    { resource: { resourceType: 'Patient', id: 'p1' }, search: { mode: 'include' } },
  ]);
  const { gw, calls } = fakeGateway({
    epic: async () => epicBundle,
    cerner: () => searchset([match(obs('shared')), match(obs('b'))]),
    broken: async () => {
      throw new FHIRHTTPError('search failed: 500 secret-diag', { status: 500 });
    },
    slow: hangs,
  });
  const bundle = await aggregateSources(gw, {
    resourceType: 'Observation',
    params: { patient: '123', code: ['a', 'b'] },
    sources: ['epic', 'cerner', 'broken', 'slow', 'missing'],
    timeoutSeconds: 0.05,
  });
  assert.equal(bundle.resourceType, 'Bundle');
  assert.equal(bundle.type, 'searchset');
  const entries = bundle.entry ?? [];
  assert.deepEqual(
    entries.map((e) => [e.resource?.resourceType, e.resource?.id, sourceOf(e)?.join(), e.search?.mode]),
    [
      ['Observation', 'a', 'epic', 'match'],
      ['Observation', 'shared', 'epic', 'match'],
      ['Patient', 'p1', 'epic', 'include'],
      ['Observation', 'shared', 'cerner', 'match'],
      ['Observation', 'b', 'cerner', 'match'],
      ['OperationOutcome', undefined, 'broken', 'outcome'],
      ['OperationOutcome', undefined, 'slow', 'outcome'],
      ['OperationOutcome', undefined, 'missing', 'outcome'],
    ],
  );
  assert.equal(bundle.total, 4, 'total counts the match entries');
  assert.equal(entries[0]?.fullUrl, 'http://x/Observation/a');
  const issue = (i: number) => (entries[i]?.resource as OperationOutcome).issue[0];
  assert.equal(issue(5)?.code, 'exception');
  assert.match(issue(5)?.diagnostics ?? '', /source "broken" failed: the server answered HTTP 500/);
  assert.equal(issue(6)?.code, 'timeout');
  assert.match(issue(6)?.diagnostics ?? '', /source "slow" failed: no answer within 0.05 s/);
  assert.equal(issue(7)?.code, 'not-found');
  assert.doesNotMatch(JSON.stringify(bundle), /secret-diag/);
  assert.deepEqual(calls.map((c) => [c.type, c.source]), [
    ['Observation', 'epic'],
    ['Observation', 'cerner'],
    ['Observation', 'broken'],
    ['Observation', 'slow'],
    ['Observation', 'missing'],
  ]);
  assert.deepEqual(calls[0]?.params, { patient: '123', code: ['a', 'b'] });
  assert.equal(calls[3]?.signal.aborted, true, 'the slow source was told to stop');
  assert.equal(shared.meta, undefined, 'the sources\' resources are not modified');
  assert.equal(epicBundle.entry?.length, 5);
});

test('a source that ignores its signal still times out', async () => {
  const { gw } = fakeGateway({ deaf: () => new Promise<Bundle>(() => {}), fine: () => searchset([match(obs('1'))]) });
  const bundle = await aggregateSources(gw, { resourceType: 'Observation', sources: ['deaf', 'fine'], timeoutSeconds: 0.02 });
  assert.deepEqual(bundle.entry?.map((e) => e.resource?.resourceType), ['OperationOutcome', 'Observation']);
  assert.equal((bundle.entry?.[0]?.resource as OperationOutcome).issue[0]?.code, 'timeout');
});

test('a gateway that rejects with its own error on time-out is still reported as a time-out', async () => {
  const { gw } = fakeGateway({ slow: (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('boom')))) });
  const bundle = await aggregateSources(gw, { resourceType: 'Observation', sources: ['slow'], timeoutSeconds: 0.02 });
  assert.equal((bundle.entry?.[0]?.resource as OperationOutcome).issue[0]?.code, 'timeout');
});

test('the caller\'s signal aborts the sources not done yet, reported as aborted', async () => {
  const controller = new AbortController();
  const { gw } = fakeGateway({
    quick: async () => searchset([match(obs('q'))]),
    stuck: (signal) => {
      setImmediate(() => controller.abort());
      return hangs(signal);
    },
  });
  const bundle = await aggregateSources(gw, { resourceType: 'Observation', sources: ['quick', 'stuck'], signal: controller.signal });
  assert.deepEqual(bundle.entry?.map((e) => sourceOf(e)?.join()), ['quick', 'stuck']);
  const outcome = bundle.entry?.[1]?.resource as OperationOutcome;
  assert.equal(outcome.issue[0]?.code, 'incomplete');
  assert.match(outcome.issue[0]?.diagnostics ?? '', /aborted/);
});

test('an already aborted signal reports every source as aborted without waiting, and sends no search', async () => {
  const { gw, calls } = fakeGateway({ a: hangs, b: hangs });
  const bundle = await aggregateSources(gw, { resourceType: 'Observation', sources: ['a', 'b'], signal: AbortSignal.abort() });
  assert.deepEqual(bundle.entry?.map((e) => (e.resource as OperationOutcome).issue[0]?.code), ['incomplete', 'incomplete']);
  assert.equal(calls.length, 0);
});

test('the searches of one call share one signal, aborted once when the time-out fires', async () => {
  const { gw, calls } = fakeGateway({ quick: async () => searchset([match(obs('q'))]), slow: hangs, slower: hangs });
  const bundle = await aggregateSources(gw, { resourceType: 'Observation', sources: ['quick', 'slow', 'slower'], timeoutSeconds: 0.02 });
  assert.deepEqual(bundle.entry?.map((e) => e.resource?.resourceType === 'OperationOutcome' ? (e.resource as OperationOutcome).issue[0]?.code : e.resource?.id), ['q', 'timeout', 'timeout']);
  assert.equal(new Set(calls.map((c) => c.signal)).size, 1);
  assert.equal(calls[0]?.signal.aborted, true);
  assert.equal((calls[0]?.signal.reason as DOMException).name, 'TimeoutError');
});

test('sync answers, a non-Bundle answer, a plain thrown error, no sources, repeated names', async () => {
  const { gw, calls } = fakeGateway({
    sync: () => searchset([match(obs('s', { meta: { tag: [{ system: SOURCE_TAG_SYSTEM, code: 'sync' }] } }))]),
    odd: () => ({ resourceType: 'Patient' }) as unknown as Bundle,
    plain: () => {
      throw new TypeError('secret-diag');
    },
    empty: () => ({ resourceType: 'Bundle', type: 'searchset' }),
  });
  const bundle = await aggregateSources(gw, { resourceType: 'Observation', sources: ['sync', 'odd', 'plain', 'empty', 'sync'] });
  const entries = bundle.entry ?? [];
  assert.equal(entries.length, 3);
  assert.deepEqual(sourceOf(entries[0]), ['sync'], 'an existing tag is not doubled');
  assert.match((entries[1]?.resource as OperationOutcome).issue[0]?.diagnostics ?? '', /"odd" failed: ERR_FHIR_RESPONSE/);
  assert.match((entries[2]?.resource as OperationOutcome).issue[0]?.diagnostics ?? '', /"plain" failed: the search failed/);
  assert.doesNotMatch(JSON.stringify(bundle), /secret-diag/);
  assert.equal(calls.filter((c) => c.source === 'sync').length, 1);
  const none = await aggregateSources(gw, { resourceType: 'Observation', sources: [] });
  assert.deepEqual([none.total, none.entry], [0, undefined]);
});

test('bad options throw at once', () => {
  const { gw } = fakeGateway({});
  const opts = (patch: Partial<Record<keyof AggregateSourcesOptions, unknown>>) =>
    ({ resourceType: 'Observation', sources: ['a'], ...patch }) as AggregateSourcesOptions;
  assert.throws(() => aggregateSources({} as SearchingGateway, opts({})), TypeError);
  assert.throws(() => aggregateSources(gw, null as unknown as AggregateSourcesOptions), TypeError);
  assert.throws(() => aggregateSources(gw, opts({ resourceType: 'Observations' })), { code: 'ERR_INVALID_RESOURCE_TYPE' });
  assert.throws(() => aggregateSources(gw, opts({ params: 'patient=1' })), /options\.params/);
  assert.throws(() => aggregateSources(gw, opts({ sources: 'a' })), /options\.sources/);
  assert.throws(() => aggregateSources(gw, opts({ sources: ['a', ''] })), /options\.sources/);
  assert.throws(() => aggregateSources(gw, opts({ timeoutSeconds: '5' })), { name: 'TypeError', message: /timeoutSeconds/ });
  for (const t of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 1e12]) {
    assert.throws(() => aggregateSources(gw, opts({ timeoutSeconds: t })), { name: 'RangeError', message: /timeoutSeconds/ });
  }
  assert.throws(() => aggregateSources(gw, opts({ signal: {} })), /options\.signal/);
});
