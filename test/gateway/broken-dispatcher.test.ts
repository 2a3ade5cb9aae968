import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventDispatcher } from '../../src/events/index.js';
import type { Patient } from '../../src/fhir/index.js';
import { AsyncFHIRGateway } from '../../src/gateway/index.js';
import { sandbox } from '../support/sandbox.js';

test('a dispatcher whose emit throws never fails a call that succeeded (a create must not look failed and be retried)', async (t) => {
  const s = await sandbox(t);
  let emitted = 0;
  const broken: EventDispatcher = {
    emit: () => {
      emitted++;
      throw new Error('event bus down');
    },
    register: () => () => {},
    drain: async () => {},
  };
  const gw = new AsyncFHIRGateway({ dispatcher: broken });
  t.after(() => gw.close());
  gw.addSource('s', s.connectionString());
  const write = process.stderr.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    const created = await gw.create({ resourceType: 'Patient', name: [{ family: 'Once' }] } as Patient);
    assert.equal((await gw.read('Patient', created.id as string)).name?.[0]?.family, 'Once');
    assert.equal((await gw.search('Patient', { family: 'Once' })).total, 1);
  } finally {
    process.stderr.write = write;
  }
  assert.equal(emitted, 3);
});
