/**
 * Fuzz: early answers of the host (a refused envelope, a CDS 4xx, a 401, 404 or 413) over one keep-alive
 * socket never strand the request pipelined behind them: the body is drained, or the answer says
 * `Connection: close`.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { CDSHooksService } from '../../src/cds/index.js';
import { NoteReaderService } from '../../src/soap/service.js';
import { runFuzz } from './lib/fuzz.js';
import type { Random } from './lib/random.js';
import { startApp } from '../support/serve.js';

/** Large enough that a body is still arriving when an early answer goes out. */
const LIMIT = 256 * 1024;
const TARGETS = ['/notereader', '/cds/cds-services/greet', '/cds/cds-services/nope', '/custom', '/nowhere', '/health'];
const TYPES = ['text/xml; charset=utf-8', 'application/json', 'application/json; charset=iso-8859-1', 'text/plain', ''];
const BODIES = ['<!DOCTYPE x [<!ENTITY a "b">]><x/>', '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">', '{"hook":', 'not json at all'];

interface Early {
  readonly method: string;
  readonly path: string;
  readonly headers: readonly string[];
  readonly body: string;
}

function early(rng: Random): Early {
  // Weighted towards the paths that answer mid-body (a refused envelope, a CDS 4xx) with a key.
  const path = rng.chance(0.4) ? '/notereader' : rng.pick(TARGETS);
  const head = path === '/notereader' && rng.chance(0.6) ? BODIES[0]! : rng.pick(BODIES);
  const length = rng.chance(0.2) ? LIMIT + 1 + rng.int(LIMIT) : rng.chance(0.6) ? LIMIT / 2 + rng.int(LIMIT / 2) : rng.int(LIMIT);
  const body = (head + rng.string(Math.min(length, 64), 'abc<>/"{} ').repeat(Math.ceil(length / 64))).slice(0, length);
  const type = path === '/notereader' && rng.chance(0.7) ? TYPES[0]! : rng.pick(TYPES);
  const headers = [`Content-Type: ${type}`];
  if (rng.chance(0.8)) headers.push('X-API-Key: k');
  if (rng.chance(0.1)) headers.push('Origin: https://app.example.org', 'Access-Control-Request-Method: POST');
  return { method: rng.chance(0.8) ? 'POST' : rng.pick(['PUT', 'OPTIONS', 'DELETE']), path, headers, body };
}

/** Writes `first` and a pipelined `GET /health` (Connection: close), reads until the server closes. */
function exchange(port: number, first: Early): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      const head = [`${first.method} ${first.path} HTTP/1.1`, 'Host: x', ...first.headers, `Content-Length: ${Buffer.byteLength(first.body)}`];
      socket.write(`${head.join('\r\n')}\r\n\r\n${first.body}GET /health HTTP/1.1\r\nHost: x\r\nX-API-Key: k\r\nConnection: close\r\n\r\n`);
    });
    let data = '';
    socket.on('data', (c: Buffer) => (data += c.toString('latin1'))).on('close', () => resolve(data)).on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ECONNRESET' || e.code === 'EPIPE') resolve(data);
      else reject(e);
    });
    socket.setTimeout(20_000, () => socket.destroy(new Error('safety net: the connection hung')));
  });
}

/** The heads of the answers in `data`, walked by their Content-Length (every answer here has one). */
function heads(data: string): string[] {
  const out: string[] = [];
  for (let at = 0; at < data.length;) {
    const end = data.indexOf('\r\n\r\n', at);
    if (end === -1) break;
    const head = data.slice(at, end);
    out.push(head);
    at = end + 4 + Number(/^content-length: (\d+)$/im.exec(head)?.[1] ?? 0);
  }
  return out;
}

test('fuzz: an early answer never strands the request pipelined behind it (drained, or Connection: close)', async (t) => {
  const cds = new CDSHooksService({ bodyLimit: LIMIT });
  cds.hook('patient-view', { id: 'greet', description: 'greets' }, () => ({ cards: [] }));
  const nr = new NoteReaderService({ bodyLimit: LIMIT }).method('ProcessDocument', () => 'ok');
  const { base } = await startApp(t, { apiKeys: ['k'], bodyLimit: LIMIT, cors: { origins: ['https://app.example.org'] } }, (app) =>
    app.registerService(cds).registerService(nr).post('/custom', async (ctx) => ({ n: (await ctx.bytes()).length })),
  );
  const port = Number(new URL(base).port);
  await runFuzz({ seed: 0x13e4, iterations: 60 }, {
    generate: early,
    async check(request) {
      const answers = heads(await exchange(port, request));
      assert.ok(answers.length >= 1, 'the first request is answered');
      if (/^connection: close$/im.test(answers[0]!)) return assert.equal(answers.length, 1);
      assert.equal(answers.length, 2, `the pipelined request was answered after ${answers[0]!.slice(0, 40)}`);
      assert.match(answers[1]!, /^HTTP\/1\.1 200/);
    },
  });
});
