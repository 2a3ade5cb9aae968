import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type EventDispatcher } from '../../src/events/index.js';
import { emitSafely } from '../../src/events/emit-safely.js';

/** Captures what is written to stderr while `run` runs (and until `settled` resolves). */
async function stderrOf(run: () => void, settled: () => Promise<unknown> = async () => {}): Promise<string> {
  const write = process.stderr.write;
  let text = '';
  process.stderr.write = ((chunk: string | Uint8Array) => {
    text += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    run();
    await settled();
  } finally {
    process.stderr.write = write;
  }
  return text;
}

const dispatcher = (emit: EventDispatcher['emit']): EventDispatcher => ({ emit, register: () => () => {}, drain: async () => {} });

test('emitSafely passes events on, and does nothing without a dispatcher', () => {
  const seen: unknown[] = [];
  emitSafely(dispatcher((name, payload) => void seen.push([name, payload])), 'fhir.patient.read', { resource_id: '1' });
  assert.deepEqual(seen, [['fhir.patient.read', { resource_id: '1' }]]);
  emitSafely(null, 'x', {});
  emitSafely(undefined, 'x', {});
});

test('what emit throws is written to stderr as one JSON line without the payload, and goes no further', async () => {
  const text = await stderrOf(() => emitSafely(dispatcher(() => {
    throw new Error('bus\ndown');
  }), 'fhir.patient.create', { resource_id: 'secret-looking-id' }));
  assert.deepEqual(JSON.parse(text), { level: 'error', msg: 'event dispatcher failed', event: 'fhir.patient.create', error: 'bus down' });
});

test('a promise that emit returns and that rejects is reported, not left unhandled', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const broken = dispatcher((() => Promise.reject(new Error('kafka down'))) as unknown as EventDispatcher['emit']);
    const text = await stderrOf(() => emitSafely(broken, 'cdshooks.patient-view', {}), () => new Promise((r) => setImmediate(r)));
    assert.equal(JSON.parse(text).error, 'kafka down');
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});
