/**
 * Fuzz: `request()` of `src/http/` against a server that answers with random and mutated HTTP responses
 * (bad status lines, wrong or repeated lengths, broken chunking, huge headers, random bytes, early
 * close, absurd `Retry-After`), retries included. It resolves with an answer or rejects with its own coded
 * errors only.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { test } from 'node:test';
import { request } from '../../src/http/request.js';
import { runFuzz, settle } from './lib/fuzz.js';
import type { Random } from './lib/random.js';

const BODY = '{"resourceType":"Patient","id":"1"}';
const GOOD = `HTTP/1.1 200 OK\r\nContent-Type: application/fhir+json\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`;
const CHUNKED = `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n3\r\n"b"\r\n1\r\n}\r\n0\r\n\r\n`;
const MAX_RESPONSE = 4096;

const VARIANTS = [
  'HTTP/1.1 999 Weird\r\nContent-Length: 0\r\n\r\n', 'HTTP/1.1 abc\r\n\r\n', 'HTTP/2.0 200 OK\r\n\r\n', 'HTTP/1.1 200\r\n\r\nrest',
  'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!', 'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n',
  'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nlonger than two',
  'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nxx\r\n0\r\n\r\n', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFF\r\nx',
  'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\nContent-Length: 3\r\n\r\nabc', 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok',
  'HTTP/1.1 302 Found\r\nLocation: http://evil.example/\r\nContent-Length: 0\r\n\r\n', 'HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n\r\nnope',
  `HTTP/1.1 200 OK\r\nX-Big: ${'h'.repeat(20_000)}\r\nContent-Length: 0\r\n\r\n`, `HTTP/1.1 200 OK\r\nContent-Length: ${MAX_RESPONSE * 2}\r\n\r\n${'x'.repeat(MAX_RESPONSE * 2)}`,
  `HTTP/1.1 200 OK\r\n\r\n${'y'.repeat(MAX_RESPONSE + 10)}`, 'HTTP/1.1 200 OK\r\nBad Header\r\n\r\n', 'HTTP/1.1 200 OK\r\n: empty\r\n\r\n',
  'HTTP/1.1 200 OK\nContent-Length: 2\n\nok', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n\u00ff\u00fe', '', '\r\n\r\n', 'GET / HTTP/1.1\r\n\r\n',
  'HTTP/1.1 503 Busy\r\nRetry-After: 99999999999\r\nContent-Length: 0\r\n\r\n', 'HTTP/1.1 429 Slow\r\nRetry-After: Wed, 21 Oct 2015 07:28:00 GMT\r\nContent-Length: 0\r\n\r\n',
  'HTTP/1.1 429 Slow\r\nRetry-After: Fri, 31 Dec 9999 23:59:59 GMT\r\nContent-Length: 0\r\n\r\n', 'HTTP/1.1 502 Bad\r\nRetry-After: -5\r\nRetry-After: abc\r\nContent-Length: 0\r\n\r\n',
  'HTTP/1.1 504 Late\r\nRetry-After: 1e3\r\n\r\n',
];

/** The bytes the server sends for one case. */
function answer(rng: Random): Buffer {
  switch (rng.int(5)) {
    case 0: return Buffer.from(rng.pick(VARIANTS), 'latin1');
    case 1: return rng.mutateBytes(Buffer.from(rng.pick([GOOD, CHUNKED])));
    case 2: return Buffer.from(rng.mutate(rng.pick([GOOD, CHUNKED])));
    case 3: return rng.bytes();
    default: return Buffer.from(rng.pick([GOOD, CHUNKED]).slice(0, rng.int(GOOD.length)));
  }
}

test('request() resolves or rejects with ERR_NETWORK, ERR_TIMEOUT or ERR_RESPONSE_TOO_LARGE on hostile answers', async (t) => {
  let next: Buffer = Buffer.alloc(0);
  const server = createServer((socket: Socket) => {
    const reply = next;
    let seen = '';
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      seen += chunk.toString('latin1');
      if (seen.includes('\r\n\r\n')) socket.end(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  await runFuzz({ seed: 0x4770, iterations: 800 }, {
    generate: answer,
    async check(bytes) {
      next = bytes;
      const outcome = await settle(['ERR_NETWORK', 'ERR_TIMEOUT', 'ERR_RESPONSE_TOO_LARGE'], () =>
        request(`http://127.0.0.1:${port}/fhir/Patient/1`, {
          headers: { accept: 'application/fhir+json' }, timeoutMs: 15_000, maxResponseBytes: MAX_RESPONSE,
          // Retries stay on (they meet the same hostile answers); the waits are cut to keep the run short.
          retryBaseDelayMs: 1, maxRetryDelayMs: 5,
        }));
      if (outcome.ok) {
        assert.ok(Number.isInteger(outcome.value.status));
        assert.ok(outcome.value.body.length <= MAX_RESPONSE, 'the body never exceeds maxResponseBytes');
      } else {
        assert.ok(!/\n\s+at /.test(outcome.error.message), 'no stack trace in the message');
      }
    },
  });
});
