import assert from 'node:assert/strict';
import { test } from 'node:test';
import { childSpan, formatTraceparent, readTraceparent, readTracestate, startTrace } from '../../src/lib/trace-context.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

test('readTraceparent continues a valid version-00 header and keeps only the sampled flag', () => {
  assert.deepEqual(readTraceparent(`00-${TRACE}-${SPAN}-01`), { traceId: TRACE, spanId: SPAN, flags: 1, state: undefined });
  assert.deepEqual(readTraceparent(`00-${TRACE}-${SPAN}-00`)?.flags, 0);
  assert.deepEqual(readTraceparent(`00-${TRACE}-${SPAN}-ff`)?.flags, 1, 'flags version 00 does not define are dropped');
});

test('readTraceparent refuses what the Recommendation calls invalid', () => {
  const invalid = [
    undefined,
    '',
    `00-${TRACE.toUpperCase()}-${SPAN}-01`, // upper case
    `00-${'0'.repeat(32)}-${SPAN}-01`, // all-zero trace id
    `00-${TRACE}-${'0'.repeat(16)}-01`, // all-zero parent id
    `ff-${TRACE}-${SPAN}-01`, // version ff
    `0g-${TRACE}-${SPAN}-01`, // version not hex
    `00-${TRACE}-${SPAN}-01-extra`, // version 00 has four fields
    `00-${TRACE}-${SPAN}-1`, // short flags
    `00-${TRACE}0-${SPAN}-01`.slice(0, 55), // dashes misplaced
    `00_${TRACE}_${SPAN}_01`,
    `00-${TRACE}-${SPAN}-0x`,
    `00-${TRACE}-${SPAN}-01, 00-${TRACE}-${SPAN}-01`, // a repeated header as Node joins it
    [`00-${TRACE}-${SPAN}-01`, `00-${TRACE}-${SPAN}-01`],
  ];
  for (const header of invalid) assert.equal(readTraceparent(header), undefined, String(header));
});

test('readTraceparent reads a higher version by its first four fields', () => {
  assert.equal(readTraceparent(`cc-${TRACE}-${SPAN}-01`)?.traceId, TRACE);
  assert.equal(readTraceparent(`cc-${TRACE}-${SPAN}-01-what-the-future-holds`)?.spanId, SPAN);
  assert.equal(readTraceparent(`cc-${TRACE}-${SPAN}-01.what`), undefined, 'the 56th character must be a dash');
});

test('formatTraceparent writes version 00 in lower case and round-trips', () => {
  const header = `00-${TRACE}-${SPAN}-01`;
  const context = readTraceparent(header);
  assert.ok(context);
  assert.equal(formatTraceparent(context), header);
  assert.equal(formatTraceparent({ ...context, flags: 0 }), `00-${TRACE}-${SPAN}-00`);
});

test('readTracestate keeps a valid list and drops an invalid one whole', () => {
  assert.equal(readTracestate('rojo=00f067aa0ba902b7, congo=t61rcWkgMzE'), 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE');
  assert.equal(readTracestate(['rojo=1', 'congo=2']), 'rojo=1,congo=2', 'several headers are one list');
  assert.equal(readTracestate('fw529a3039@dt=abc,,  ,x=y'), 'fw529a3039@dt=abc,x=y', 'empty members go');
  assert.equal(readTracestate(undefined), undefined);
  assert.equal(readTracestate(' , '), undefined);
  for (const bad of ['Rojo=1', 'rojo=1,rojo=2', 'rojo', 'rojo=a,b', 'rojo=a=b', 'rojo=tab\there', '1abc=2', `a@${'b'.repeat(15)}=1`]) {
    assert.equal(readTracestate(bad), undefined, bad);
  }
  const many = Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(',');
  assert.equal(readTracestate(many), undefined, 'more than 32 members');
  assert.equal(readTracestate(many.slice(0, many.lastIndexOf(','))), many.slice(0, many.lastIndexOf(',')), '32 members pass');
});

test('readTracestate cuts a long list to 512 characters, long members first', () => {
  const long = `big=${'x'.repeat(200)}`;
  const small = Array.from({ length: 20 }, (_, i) => `k${i}=${'v'.repeat(20)}`);
  const cut = readTracestate([long, ...small].join(','));
  assert.ok(cut !== undefined && cut.length <= 512, String(cut?.length));
  assert.ok(!cut.includes('big='), 'the member over 128 characters went first');
  assert.ok(cut.startsWith('k0=') && cut.split(',').length === 20, 'the 20 short members (500 characters) stay');
});

test('readTraceparent carries a valid tracestate, never an invalid one', () => {
  assert.equal(readTraceparent(`00-${TRACE}-${SPAN}-01`, 'a=1')?.state, 'a=1');
  assert.equal(readTraceparent(`00-${TRACE}-${SPAN}-01`, 'A=1')?.state, undefined);
});

test('startTrace and childSpan make valid, distinct ids in one trace', () => {
  const ids = new Set<string>();
  for (let i = 0; i < 1000; i++) {
    const root = startTrace();
    const child = childSpan(root);
    assert.equal(child.traceId, root.traceId);
    assert.notEqual(child.spanId, root.spanId);
    assert.deepEqual(readTraceparent(formatTraceparent(child)), { ...child, state: undefined });
    ids.add(root.traceId);
  }
  assert.equal(ids.size, 1000);
  assert.equal(childSpan({ traceId: TRACE, spanId: SPAN, flags: 0, state: 'a=1' }).state, 'a=1');
});
