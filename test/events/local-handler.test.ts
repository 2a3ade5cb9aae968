import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { LocalEventDispatcher, localHandler } from '../../src/events/index.js';
import { LOADER, ROOT, srcModule } from '../support/code-tree.js';

test('localHandler is one process-wide LocalEventDispatcher that supports the decorator form', async (t) => {
  assert.ok(localHandler instanceof LocalEventDispatcher);
  const again = await import('../../src/events/local-handler.js');
  assert.equal(again.localHandler, localHandler);
  const seen: unknown[] = [];
  const handler = localHandler.register('fhir.patient.read')(async ([name, payload]) => void seen.push([name, payload.resource_id]));
  t.after(() => localHandler.unregister('fhir.patient.read', handler));
  localHandler.emit('fhir.patient.read', { resource_id: '123' });
  await localHandler.drain();
  assert.deepEqual(seen, [['fhir.patient.read', '123']]);
});

test('by default a failing handler is reported as one JSON line on stderr, without stack or payload', async () => {
  const script = `
    import { localHandler } from ${JSON.stringify(srcModule('events/index'))};
    localHandler.register('fhir.*', () => { throw Object.assign(new Error('boom\\nsecond line'), { code: 'ERR_HANDLER' }); });
    localHandler.register('fhir.*', async () => { throw 'plain'; });
    localHandler.register('fhir.*', () => { throw Object.create(null); });
    localHandler.register('fhir.*', () => { throw new Error('x'.repeat(1000)); });
    localHandler.emit('fhir.patient.read', { resource_id: 'p-1', secret_marker: 'do-not-log' });
    await localHandler.drain();
    process.stdout.write('emitter carried on');
  `;
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [...LOADER, '--input-type=module', '-e', script], {
    cwd: ROOT,
    timeout: 60_000,
  });
  assert.equal(stdout, 'emitter carried on');
  const lines = stderr.trim().split('\n');
  assert.equal(lines.length, 4, stderr);
  assert.deepEqual(JSON.parse(lines[0] ?? ''), {
    level: 'error',
    msg: 'event handler failed',
    event: 'fhir.patient.read',
    pattern: 'fhir.*',
    error: 'boom second line',
    code: 'ERR_HANDLER',
  });
  assert.equal(JSON.parse(lines[1] ?? '').error, 'unprintable value', 'sync failures are reported before async ones');
  assert.equal(JSON.parse(lines[2] ?? '').error, `${'x'.repeat(299)}…`);
  assert.equal(JSON.parse(lines[3] ?? '').error, 'plain');
  assert.doesNotMatch(stderr, /do-not-log|p-1|at .*\.ts:\d+/);
});
