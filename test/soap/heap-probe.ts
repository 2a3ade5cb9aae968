/**
 * Run by large.test.ts in a child process started with --expose-gc (and without coverage collection,
 * whose bookkeeping explicit GCs disturb): serves a NoteReaderService, posts the same 10 MiB document
 * several times, and prints the heap in use after each call, after a full GC, as JSON.
 */
import type { TestContext } from 'node:test';
import { NoteReaderService } from '../../src/soap/service.js';
import { serve } from '../support/serve.js';
import { bigDocument, envelope, post } from '../support/soap-client.js';

const MiB = 1024 * 1024;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const cleanups: (() => unknown)[] = [];
const t = { after: (fn: () => unknown) => void cleanups.push(fn) } as unknown as TestContext;
const nr = new NoteReaderService({ bodyLimit: 16 * MiB, dispatcher: { emit: () => {}, register: () => () => {}, drain: async () => {} } });
nr.method('ProcessDocument', (req) => ({ document: req.document.slice(0, 1000) }));
const { baseUrl } = await serve(t, nr);
const body = Buffer.from(envelope(bigDocument(10 * MiB)));
const heap: number[] = [];
for (let i = 0; i < 6; i += 1) {
  const answer = await post(baseUrl, body);
  if (answer.status !== 200) throw new Error(`status ${answer.status}`);
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  heap.push(process.memoryUsage().heapUsed);
}
for (const fn of cleanups) await fn();
process.stdout.write(JSON.stringify({ heap }));
