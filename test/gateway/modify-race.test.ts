import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Patient } from '../../src/fhir/index.js';
import { MODIFY_ATTEMPTS } from '../../src/gateway/modify.js';
import { sandbox } from '../support/sandbox.js';
import { gateway } from '../support/gateway-fixtures.js';

const COUNTER = 'http://fhirgate.example/counter';

function counterOf(p: Patient): number {
  return p.extension?.find((e) => e.url === COUNTER)?.valueInteger ?? 0;
}

/** Increments the counter extension in place. */
function increment(p: Patient): void {
  const others = (p.extension ?? []).filter((e) => e.url !== COUNTER);
  p.extension = [...others, { url: COUNTER, valueInteger: counterOf(p) + 1 }];
}

const count = (s: { stats: { requests: { byMethod: Readonly<Record<string, number>> } } }, method: string): number => s.stats.requests.byMethod[method] ?? 0;

test('two modify calls racing on one resource both succeed and the counter counts both', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t, { events: false });
  gw.addSource('s', s.connectionString());
  s.stats.reset();
  // Both first attempts wait until both have read the resource: they hold the same version, so one
  // save must lose (412) and be retried on the winner's version.
  let arrived = 0;
  let release!: () => void;
  const bothRead = new Promise<void>((resolve) => (release = resolve));
  const attempts = { a: 0, b: 0 };
  const racer = (name: 'a' | 'b') => async (p: Patient): Promise<void> => {
    attempts[name]++;
    if (++arrived === 2) release();
    await bothRead;
    increment(p);
  };
  const [a, b] = await Promise.all([gw.modify('Patient', 'a-patient-1', 's', racer('a')), gw.modify('Patient', 'a-patient-1', 's', racer('b'))]);
  const final = await gw.read('Patient', 'a-patient-1', 's');
  assert.equal(counterOf(final), 2);
  assert.deepEqual([counterOf(a), counterOf(b)].sort(), [1, 2]);
  assert.equal(attempts.a + attempts.b, 3, 'exactly one of them ran its callback twice');
  assert.equal(count(s, 'PUT'), 3, 'two saves on the same version (one lost with 412), one retried save');
  assert.equal(Number(final.meta?.versionId), 3);
});

test('modify against a third party that always saves first ends in ERR_CONFLICT after exactly the bounded attempts', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t, { events: false });
  const { gw: other } = gateway(t, { events: false });
  gw.addSource('s', s.connectionString());
  other.addSource('s', s.connectionString());
  s.stats.reset();
  let calls = 0;
  await assert.rejects(
    gw.modify('Patient', 'a-patient-2', 's', async (p) => {
      calls++;
      // The third party changes the resource between this read and this save.
      const theirs = await other.read('Patient', 'a-patient-2', 's');
      await other.update({ ...theirs, birthDate: `19${String(70 + calls)}-01-01` }, 's');
      increment(p);
    }),
    { code: 'ERR_CONFLICT', status: 412 },
  );
  assert.equal(calls, MODIFY_ATTEMPTS);
  assert.equal(count(s, 'PUT'), 2 * MODIFY_ATTEMPTS, 'each attempt: the third party\'s PUT, then ours, refused');
  const final = await other.read('Patient', 'a-patient-2', 's');
  assert.equal(counterOf(final), 0, 'none of the refused saves was stored');
  assert.equal(final.birthDate, `19${String(70 + MODIFY_ATTEMPTS)}-01-01`);
});
