// W3C Trace Context at the host: a valid traceparent is continued as a new span of the caller's trace, an
// invalid one is ignored (never echoed, never a 400) and a new trace started; the trace id is in X-Trace-ID,
// on the access log line, in ctx.log's lines and in currentTrace() inside the handler, awaits included.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { currentTrace } from '../../src/lib/trace-scope.js';
import { startApp } from '../support/serve.js';
import { call } from '../support/host-helpers.js';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT = 'b7ad6b7169203331';

async function tracingApp(t: Parameters<typeof startApp>[0]) {
  return startApp(t, {}, (a) =>
    a.get('/t', async (ctx) => {
      await sleep(1);
      const after = currentTrace();
      ctx.log.info('handler line');
      return { trace: ctx.trace, afterAwait: after };
    }),
  );
}

test('a valid traceparent is continued: same trace id, a new span id, its flags and tracestate', async (t) => {
  const { base, log } = await tracingApp(t);
  const answer = await call(base, '/t', { headers: { traceparent: `00-${TRACE}-${PARENT}-01`, tracestate: 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7' } });
  assert.equal(answer.status, 200);
  assert.equal(answer.headers['x-trace-id'], TRACE);
  const body = answer.json() as { trace: { traceId: string; spanId: string; flags: number; state: string }; afterAwait: unknown };
  assert.equal(body.trace.traceId, TRACE);
  assert.match(body.trace.spanId, /^[0-9a-f]{16}$/);
  assert.notEqual(body.trace.spanId, PARENT, 'the host is a span of its own, child of the caller');
  assert.equal(body.trace.flags, 1);
  assert.equal(body.trace.state, 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7');
  assert.deepEqual(body.afterAwait, body.trace, 'currentTrace() survives an await in the handler');
  const access = log.lines.find((l) => l.message === 'request');
  assert.equal(access?.fields['trace_id'], TRACE);
  assert.equal(log.lines.find((l) => l.message === 'handler line')?.fields['trace_id'], TRACE);
});

test('an invalid traceparent is ignored: 200, a new trace, nothing of it echoed', async (t) => {
  const { base } = await tracingApp(t);
  const seen = new Set<string>();
  for (const bad of [`00-${TRACE.toUpperCase()}-${PARENT}-01`, `00-${'0'.repeat(32)}-${PARENT}-01`, `ff-${TRACE}-${PARENT}-01`, 'garbage', `00-${TRACE}-${PARENT}-01-x`]) {
    const answer = await call(base, '/t', { headers: { traceparent: bad, tracestate: 'a=1' } });
    assert.equal(answer.status, 200, bad);
    const id = String(answer.headers['x-trace-id']);
    assert.match(id, /^[0-9a-f]{32}$/);
    assert.notEqual(id, TRACE);
    assert.ok(!id.includes(TRACE.toUpperCase()));
    const body = answer.json() as { trace: { traceId: string; state: unknown } };
    assert.equal(body.trace.traceId, id);
    assert.equal(body.trace.state, undefined, 'a tracestate without a valid traceparent is dropped');
    seen.add(id);
  }
  assert.equal(seen.size, 5, 'each request starts its own trace');
});

test('every answer, a 404 included, carries X-Trace-ID; outside a request there is no current trace', async (t) => {
  const { base } = await tracingApp(t);
  const missing = await call(base, '/nowhere', { headers: { traceparent: `00-${TRACE}-${PARENT}-00` } });
  assert.equal(missing.status, 404);
  assert.equal(missing.headers['x-trace-id'], TRACE);
  assert.equal(currentTrace(), undefined);
});
