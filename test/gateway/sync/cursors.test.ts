import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FhirgateError } from '../../../src/errors.js';
import { CursorTable } from '../../../src/gateway/sync/cursors.js';
import { FHIRGateway } from '../../../src/gateway/sync-gateway.js';
import { runGatewayScript, startRemoteSandbox } from '../../support/sync-gateway-helpers.js';

/** An async iterable of `name:0`, `name:1`, ... that records when its `finally` ran. */
function counter(name: string, closed: string[]): AsyncIterable<string> {
  return (async function* () {
    try {
      for (let i = 0; ; i++) yield `${name}:${i}`;
    } finally {
      closed.push(name);
    }
  })();
}

test('the cursor table closes the least recently used cursor beyond its cap', async () => {
  const closed: string[] = [];
  const cursors = new CursorTable(2);
  const a = cursors.open(counter('a', closed));
  const b = cursors.open(counter('b', closed));
  assert.deepEqual(await cursors.next(a), { done: false, value: 'a:0' });
  assert.deepEqual(await cursors.next(b), { done: false, value: 'b:0' });
  assert.deepEqual(await cursors.next(a), { done: false, value: 'a:1' }, 'a is now the most recently used');
  const c = cursors.open(counter('c', closed));
  assert.equal(cursors.size, 2);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(closed, ['b'], 'b was the least recently used: its iterator was returned');
  await assert.rejects(cursors.next(b), (err: unknown) => err instanceof FhirgateError && err.code === 'ERR_CLOSED' && /maxOpenCursors/.test(err.message));
  assert.deepEqual(await cursors.next(a), { done: false, value: 'a:2' });
  assert.deepEqual(await cursors.next(c), { done: false, value: 'c:0' });
  await assert.rejects(cursors.next(99), RangeError, 'a cursor never opened is a protocol error');
  await cursors.return(a);
  await cursors.return(a);
  assert.equal(cursors.size, 1);
  assert.deepEqual(closed, ['b', 'a']);
});

test('a cursor that is never stepped is still the least recently used', async () => {
  const closed: string[] = [];
  const cursors = new CursorTable(1);
  const a = cursors.open(counter('a', closed));
  const b = cursors.open(counter('b', closed));
  await assert.rejects(cursors.next(a), { code: 'ERR_CLOSED' });
  assert.deepEqual(await cursors.next(b), { done: false, value: 'b:0' });
  assert.equal(cursors.size, 1);
});

test('an evicted iterator whose return() fails is dropped quietly', async () => {
  let returned = 0;
  const failing: AsyncIterable<number> = {
    [Symbol.asyncIterator]: () => ({
      next: async () => ({ done: false, value: 1 }),
      return: async () => {
        returned++;
        throw new Error('cannot clean up');
      },
    }),
  };
  const cursors = new CursorTable(1);
  cursors.open(failing);
  const next = cursors.open(counter('b', []));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(returned, 1);
  assert.deepEqual(await cursors.next(next), { done: false, value: 'b:0' });
});

test('the sync gateway caps open iterators at maxOpenCursors, closing the least recently used', async (t) => {
  const s = await startRemoteSandbox(t);
  const gw = new FHIRGateway({ events: false, maxOpenCursors: 2 });
  t.after(() => gw.close());
  gw.addSource('s', await s.connectionString());
  assert.equal(gw.openCursors, 0);
  const first = gw.searchAll('Patient', { _count: 1 });
  const second = gw.pages('Patient', { _count: 1 });
  const firstId = first.next().value?.id;
  assert.equal(second.next().done, false);
  assert.equal(first.next().done, false, 'first is now the most recently used');
  assert.equal(gw.openCursors, 2);
  const third = gw.searchAll('Patient', { _count: 1 });
  assert.equal(third.next().value?.id, firstId);
  assert.equal(gw.openCursors, 2, 'opening a third closed one');
  assert.throws(() => second.next(), { code: 'ERR_CLOSED', message: /maxOpenCursors/ });
  assert.equal(second.next().done, true, 'the closed iterator is finished');
  assert.equal(first.next().done, false);
  for (const _ of third) break;
  first.return(undefined);
  assert.equal(gw.openCursors, 0, 'break and return() release their cursors');
  gw.close();
  assert.equal(gw.openCursors, 0);
});

test('maxOpenCursors is checked at construction', () => {
  assert.throws(() => new FHIRGateway({ maxOpenCursors: 0 }), { name: 'RangeError', message: /options\.maxOpenCursors/ });
  assert.throws(() => new FHIRGateway({ maxOpenCursors: 1.5 }), { name: 'RangeError', message: /options\.maxOpenCursors/ });
  assert.throws(() => new FHIRGateway({ maxOpenCursors: '2' as unknown as number }), { name: 'TypeError', message: /options\.maxOpenCursors/ });
  assert.equal(new FHIRGateway({ maxOpenCursors: 1 }).openCursors, 0, 'a gateway never used starts nothing to count');
});

test('iterators dropped unfinished give their cursors back once garbage-collected', async (t) => {
  const sb = await startRemoteSandbox(t);
  const { code, out, err } = await runGatewayScript(t, sb, [
    'function leak() {',
    '  for (let i = 0; i < 3; i++) gw.pages("Patient", { _count: 1 }).next();',
    '  gw.searchAll("Patient", { _count: 1 }).next();',
    '  gw.pages("Patient"); // never started: holds no cursor',
    '}',
    'leak();',
    'console.log("open", gw.openCursors);',
    '// Collection and finalization are not promised at any one moment: retry a bounded number of rounds.',
    'for (let round = 0; round < 50 && gw.openCursors > 0; round++) {',
    '  globalThis.gc();',
    '  await new Promise((resolve) => setTimeout(resolve, 20));',
    '}',
    'console.log("after", gw.openCursors);',
    'gw.close();',
  ], ['--expose-gc']);
  assert.equal(code, 0, err);
  assert.deepEqual(out.trim().split('\n'), ['open 4', 'after 0']);
});
