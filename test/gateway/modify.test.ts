import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Patient } from '../../src/fhir/index.js';
import { ModifyHandle } from '../../src/gateway/modify.js';
import { sandbox } from '../support/sandbox.js';
import { gateway } from './fixtures.js';

const puts = (s: { stats: { requests: { byMethod: Readonly<Record<string, number>> } } }): number => s.stats.requests.byMethod.PUT ?? 0;

test('modify with a callback saves with If-Match on the version read', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t);
  gw.addSource('s', s.connectionString());
  const before = await gw.read('Patient', 'a-patient-1');
  const saved = await gw.modify('Patient', 'a-patient-1', 's', async (p) => {
    p.active = false;
  });
  assert.equal(saved.active, false);
  assert.equal(Number(saved.meta?.versionId), Number(before.meta?.versionId) + 1);
  const replaced = await gw.modify('Patient', 'a-patient-1', undefined, (p): Patient => ({ ...p, gender: 'other' }));
  assert.equal(replaced.gender, 'other');
  assert.equal(puts(s), 2);
});

test('nothing is saved when the callback throws or changes nothing', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t);
  gw.addSource('s', s.connectionString());
  await assert.rejects(
    gw.modify('Patient', 'a-patient-1', 's', (p) => {
      p.active = false;
      throw new Error('changed my mind');
    }),
    /changed my mind/,
  );
  const same = await gw.modify('Patient', 'a-patient-1', 's', () => {});
  assert.equal(same.id, 'a-patient-1');
  assert.equal(puts(s), 0);
  assert.notEqual((await gw.read('Patient', 'a-patient-1')).active, false);
});

test('a lost race (412) is retried on the new version; after 3 tries it is ERR_CONFLICT', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t);
  gw.addSource('s', s.connectionString());
  let calls = 0;
  const saved = await gw.modify('Patient', 'a-patient-1', 's', async (p) => {
    calls++;
    if (calls === 1) await gw.update({ ...p, birthDate: '1999-01-01' });
    p.active = false;
  });
  assert.equal(calls, 2);
  assert.equal(saved.birthDate, '1999-01-01');
  assert.equal(saved.active, false);
  await assert.rejects(
    gw.modify('Patient', 'a-patient-1', 's', async (p) => {
      await gw.update({ ...p, gender: p.gender === 'male' ? 'female' : 'male' });
      p.active = !p.active;
    }),
    { code: 'ERR_CONFLICT', status: 412 },
  );
});

test('await using a modify handle saves when the scope ends; discard saves nothing', async (t) => {
  const s = await sandbox(t);
  const { gw } = gateway(t);
  gw.addSource('s', s.connectionString());
  {
    await using r = await gw.modify('Patient', 'a-patient-2', 's');
    assert.ok(r instanceof ModifyHandle);
    r.resource.active = false;
    assert.equal(puts(s), 0);
  }
  assert.equal(puts(s), 1);
  assert.equal((await gw.read('Patient', 'a-patient-2')).active, false);
  {
    await using r = await gw.modify('Patient', 'a-patient-2');
    r.resource.active = true;
    r.discard();
  }
  assert.equal(puts(s), 1);
  const r = await gw.modify('Patient', 'a-patient-2', 's', { signal: new AbortController().signal });
  r.resource.gender = 'unknown';
  const first = r.save();
  assert.equal(r.save(), first);
  assert.equal((await first).gender, 'unknown');
  await r[Symbol.asyncDispose]();
  assert.equal(puts(s), 2);
  const stale = await gw.modify('Patient', 'a-patient-2');
  await gw.update({ ...(await gw.read('Patient', 'a-patient-2')), active: true });
  stale.resource.gender = 'male';
  await assert.rejects(stale.save(), { code: 'ERR_CONFLICT' });
});
