import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as tick } from 'node:timers/promises';
import { LocalEventDispatcher, type EventPair } from '../../src/events/index.js';
import type { HandlerFailure } from '../../src/events/handler-failure.js';

/** A dispatcher whose failures are collected instead of written to stderr. */
function dispatcher(): { events: LocalEventDispatcher; failures: HandlerFailure[] } {
  const failures: HandlerFailure[] = [];
  return { events: new LocalEventDispatcher({ logger: (f) => failures.push(f) }), failures };
}

/** A promise with its resolve function, to hold an async handler open until the test lets it go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

test('handlers get [eventName, payload] with the payload object passed through unchanged', () => {
  const { events } = dispatcher();
  const seen: EventPair[] = [];
  events.register('fhir.patient.read', (pair) => void seen.push(pair));
  const payload = { resource_type: 'Patient', resource_id: '123', source: 'epic', cached: false, count: 0, note: null };
  events.emit('fhir.patient.read', payload);
  assert.equal(seen.length, 1);
  assert.equal(seen[0]?.[0], 'fhir.patient.read');
  assert.equal(seen[0]?.[1], payload);
  assert.deepEqual(payload, { resource_type: 'Patient', resource_id: '123', source: 'epic', cached: false, count: 0, note: null });
  assert.ok(Object.isFrozen(seen[0]));
});

test('exact and wildcard patterns receive only the names they match', () => {
  const { events } = dispatcher();
  const got: Record<string, string[]> = { exact: [], fhir: [], cds: [], all: [] };
  events.register('fhir.patient.read', ([n]) => void got.exact?.push(n));
  events.register('fhir.*', ([n]) => void got.fhir?.push(n));
  events.register('cdshooks.*', ([n]) => void got.cds?.push(n));
  events.register('*', ([n]) => void got.all?.push(n));
  for (const name of ['fhir.patient.read', 'fhir.observation.search', 'cdshooks.patient-view', 'cdshooks', 'notereader.processdocument']) {
    events.emit(name, {});
  }
  assert.deepEqual(got, {
    exact: ['fhir.patient.read'],
    fhir: ['fhir.patient.read', 'fhir.observation.search'],
    cds: ['cdshooks.patient-view'],
    all: ['fhir.patient.read', 'fhir.observation.search', 'cdshooks.patient-view', 'cdshooks', 'notereader.processdocument'],
  });
});

test('hasHandlers tells whether an event name would reach a handler', () => {
  const { events } = dispatcher();
  assert.equal(events.hasHandlers('fhir.patient.read'), false);
  const off = events.register('fhir.patient.read', () => {});
  const offCds = events.register('cdshooks.*', () => {});
  assert.equal(events.hasHandlers('fhir.patient.read'), true);
  assert.equal(events.hasHandlers('fhir.patient.search'), false);
  assert.equal(events.hasHandlers('cdshooks.patient-view'), true);
  assert.equal(events.hasHandlers(''), false);
  assert.equal(events.hasHandlers(42 as unknown as string), false);
  off();
  assert.equal(events.hasHandlers('fhir.patient.read'), false);
  offCds();
  assert.equal(events.hasHandlers('cdshooks.patient-view'), false);
});

test('handlers run synchronously inside emit, in registration order across patterns', () => {
  const { events } = dispatcher();
  const order: string[] = [];
  events.register('*', () => void order.push('first'));
  events.register('a.b', () => void order.push('second'));
  events.register('a.*', () => void order.push('third'));
  events.register('a.b', () => void order.push('fourth'));
  events.emit('a.b', {});
  order.push('after emit');
  assert.deepEqual(order, ['first', 'second', 'third', 'fourth', 'after emit']);
});

test('a handler that throws is logged and neither the emitter nor later handlers notice', () => {
  const { events, failures } = dispatcher();
  const reached: string[] = [];
  events.register('x.*', () => {
    throw new Error('sync boom');
  });
  events.register('x.*', () => void reached.push('after'));
  const payload = { resource_id: '1' };
  assert.doesNotThrow(() => events.emit('x.y', payload));
  assert.deepEqual(reached, ['after']);
  assert.equal(failures.length, 1);
  assert.equal(failures[0]?.eventName, 'x.y');
  assert.equal(failures[0]?.pattern, 'x.*');
  assert.equal(failures[0]?.payload, payload);
  assert.equal((failures[0]?.error as Error).message, 'sync boom');
});

test('an async handler that rejects is logged once it settles; drain waits for it', async () => {
  const { events, failures } = dispatcher();
  const hold = gate();
  events.register('a', async () => {
    await hold.promise;
    throw new Error('async boom');
  });
  events.register('a', () => Promise.reject('plain reason'));
  events.emit('a', {});
  const drained = events.drain();
  await tick();
  assert.equal(failures.length, 1, 'only the already rejected handler has failed');
  hold.open();
  await drained;
  assert.deepEqual(failures.map((f) => (f.error instanceof Error ? f.error.message : f.error)), ['plain reason', 'async boom']);
});

test('drain resolves at once with nothing running, and waits for async handlers, also ones started while draining', async () => {
  const { events, failures } = dispatcher();
  await events.drain();
  const first = gate();
  const second = gate();
  const done: string[] = [];
  events.register('one', async () => {
    await first.promise;
    done.push('one');
    events.emit('two', {});
  });
  events.register('two', async () => {
    await second.promise;
    done.push('two');
  });
  events.emit('one', {});
  let drained = false;
  const draining = events.drain().then(() => (drained = true));
  first.open();
  await tick();
  assert.deepEqual(done, ['one']);
  assert.equal(drained, false, 'the handler started during the drain is still running');
  second.open();
  await draining;
  assert.deepEqual(done, ['one', 'two']);
  assert.equal(failures.length, 0);
});

test('a thenable that is not a Promise is tracked, and its failure is logged', async () => {
  const { events, failures } = dispatcher();
  events.register('t', () => ({ then: (_ok: () => void, fail: (e: unknown) => void) => fail(new Error('thenable boom')) }) as never);
  events.emit('t', {});
  await events.drain();
  assert.equal((failures[0]?.error as Error).message, 'thenable boom');
});

test('the function register returns unregisters that registration only, and twice is harmless', () => {
  const { events } = dispatcher();
  const seen: string[] = [];
  const handler = ([n]: EventPair): void => void seen.push(n);
  const off1 = events.register('e', handler);
  const off2 = events.register('e', handler);
  events.emit('e', {});
  assert.equal(seen.length, 2, 'the same handler registered twice is called twice');
  off1();
  off1();
  events.emit('e', {});
  assert.equal(seen.length, 3);
  off2();
  events.emit('e', {});
  assert.equal(seen.length, 3);
});

test('register(pattern) returns a wrapper that registers the handler and returns it; unregister removes it', () => {
  const { events } = dispatcher();
  const seen: string[] = [];
  const handler = events.register('cdshooks.*')(async ([name]) => void seen.push(name));
  assert.equal(typeof handler, 'function');
  events.emit('cdshooks.order-select', {});
  assert.deepEqual(seen, ['cdshooks.order-select']);
  assert.equal(events.unregister('cdshooks.*', handler), true);
  assert.equal(events.unregister('cdshooks.*', handler), false);
  events.emit('cdshooks.order-select', {});
  assert.deepEqual(seen, ['cdshooks.order-select']);
});

test('unregister matches the pattern exactly and removes every registration of that pair', () => {
  const { events } = dispatcher();
  const seen: string[] = [];
  const handler = ([n]: EventPair): void => void seen.push(n);
  events.register('a.*', handler);
  events.register('a.*', handler);
  events.register('a.b', handler);
  assert.equal(events.unregister('a.b*', handler), false);
  assert.equal(events.unregister('a.*', handler), true);
  events.emit('a.b', {});
  assert.deepEqual(seen, ['a.b']);
});

test('a handler registered during dispatch misses that event; one unregistered during it is skipped', () => {
  const { events } = dispatcher();
  const seen: string[] = [];
  let offLater = (): void => {};
  events.register('e', ([, p]) => {
    seen.push(`first ${String(p.n)}`);
    if (p.n === 1) {
      events.register('e', ([, q]) => void seen.push(`late ${String(q.n)}`));
      offLater();
    }
  });
  offLater = events.register('e', ([, p]) => void seen.push(`later ${String(p.n)}`));
  events.emit('e', { n: 1 });
  events.emit('e', { n: 2 });
  assert.deepEqual(seen, ['first 1', 'first 2', 'late 2']);
});

test('emit never throws: bad names reach no handler, a throwing logger is swallowed', () => {
  const events = new LocalEventDispatcher({
    logger: () => {
      throw new Error('logger down');
    },
  });
  const seen: unknown[] = [];
  events.emit('nobody.listens', {});
  events.register('*', ([n]) => {
    seen.push(n);
    throw new Error('boom');
  });
  assert.doesNotThrow(() => events.emit('', {}));
  assert.doesNotThrow(() => events.emit(42 as never, {}));
  assert.doesNotThrow(() => events.emit('ok', {}));
  assert.deepEqual(seen, ['ok']);
});

test('misuse throws at once, naming what is wrong', () => {
  const { events } = dispatcher();
  assert.throws(() => events.register('a*b', () => {}), { name: 'TypeError', message: /"pattern"/ });
  assert.throws(() => events.register('', () => {}), { name: 'TypeError', message: /"pattern"/ });
  assert.throws(() => events.register('**'), { name: 'TypeError', message: /"pattern"/ });
  assert.throws(() => events.register('a', 'nope' as never), { name: 'TypeError', message: /"handler"/ });
  assert.throws(() => events.register('a')(null as never), { name: 'TypeError', message: /"handler"/ });
  assert.throws(() => new LocalEventDispatcher({ logger: 'stderr' as never }), { name: 'TypeError', message: /options\.logger/ });
  assert.throws(() => new LocalEventDispatcher(null as never), { name: 'TypeError', message: /options/ });
});
