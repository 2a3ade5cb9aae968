/**
 * 200 MB of NDJSON exported through the sandbox into a gateway running in a child process (with
 * --expose-gc): the child's heap and buffers stay flat, because the files are streamed a line at a time.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Resource } from '../../../src/fhir/index.js';
import { sandbox } from '../../support/sandbox.js';
import { LOADER, ROOT, srcModule } from '../../support/code-tree.js';

const RESOURCES = 20_480;
const NOTE = 'x'.repeat(10 * 1024);
const TOTAL_BYTES = 200 * 1024 * 1024;
/** Growth of heap + array buffers allowed over the run: far below the 200 MB a buffered file would take. */
const FLAT_BYTES = 24 * 1024 * 1024;

const src = (path: string): string => JSON.stringify(srcModule(path));

const SCRIPT = [
  `import { AsyncFHIRGateway } from ${src('gateway/index')};`,
  `import { LocalEventDispatcher } from ${src('events/index')};`,
  'const dispatcher = new LocalEventDispatcher();',
  'let complete;',
  "dispatcher.register('fhir.bulk.complete', ([, payload]) => { complete = payload; });",
  'const gw = new AsyncFHIRGateway({ dispatcher });',
  "gw.addSource('sb', process.env.CS);",
  'const used = () => { globalThis.gc(); const m = process.memoryUsage(); return m.heapUsed + m.arrayBuffers; };',
  'let count = 0; const baseline = used(); let max = 0;',
  "for await (const item of gw.bulkExport('sb', { types: ['Observation'] })) {",
  '  if (item.resource.note[0].text.length !== 10240) throw new Error("a resource came in changed");',
  '  if (++count % 500 === 1) max = Math.max(max, used());',
  '}',
  'await gw.close();',
  'await new Promise((r) => setImmediate(r));',
  'console.log(JSON.stringify({ count, baseline, max, bytes: complete?.bytes }));',
].join('\n');

test('a 200 MB export streams through a gateway with a flat heap', { timeout: 300_000 }, async (t) => {
  const seed: Resource[] = Array.from({ length: RESOURCES }, (_, i) => ({
    resourceType: 'Observation',
    id: `obs-${i}`,
    status: 'final',
    code: { text: 'big note' },
    note: [{ text: NOTE }],
  }) as Resource);
  const sb = await sandbox(t, { seed, open: true, exportPolls: 0 });
  const dir = mkdtempSync(join(tmpdir(), 'fhirgate-bulk-heap-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const script = join(dir, 'heap.mjs');
  writeFileSync(script, SCRIPT);
  const child = spawn(process.execPath, ['--expose-gc', ...LOADER, script], {
    cwd: ROOT,
    env: { ...process.env, CS: `fhir://${sb.fhirBase.slice('http://'.length)}`, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (err += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.equal(code, 0, err);
  const run = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { count: number; baseline: number; max: number; bytes: number };
  assert.equal(run.count, RESOURCES);
  assert.ok(run.bytes > TOTAL_BYTES, `${run.bytes} bytes exported, expected over ${TOTAL_BYTES}`);
  assert.ok(run.baseline > 0 && run.max > 0);
  assert.ok(run.max - run.baseline < FLAT_BYTES, `heap grew by ${((run.max - run.baseline) / 1048576).toFixed(1)} MB (baseline ${(run.baseline / 1048576).toFixed(1)} MB)`);
});
