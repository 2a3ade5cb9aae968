import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pickRequestId } from '../../src/host/request-id.js';
import { startApp } from '../support/serve.js';

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('a request without a sane X-Request-ID gets a new UUID-shaped id, different for every request', () => {
  const ids = new Set<string>();
  for (const incoming of [undefined, '', '<script>', 'x'.repeat(129), ['a', 'b']] as const) {
    for (let i = 0; i < 1000; i++) ids.add(pickRequestId(incoming as string | string[] | undefined));
  }
  assert.equal(ids.size, 5000);
  for (const id of ids) assert.match(id, UUID_SHAPE);
  assert.equal(pickRequestId('abc-123'), 'abc-123');
});

test('the host echoes the id it issued in X-Request-ID and hands the same one to the handler', async (t) => {
  const { base } = await startApp(t, {}, (a) => a.get('/r', (ctx) => ({ id: ctx.requestId })));
  const seen = new Set<string>();
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${base}/r`);
    const header = res.headers.get('x-request-id') ?? '';
    assert.match(header, UUID_SHAPE);
    assert.deepEqual(await res.json(), { id: header });
    seen.add(header);
  }
  assert.equal(seen.size, 3);
});
