/**
 * Fuzz: the issue 13 fixes, so that they stay fixed. Early answers over one keep-alive socket never
 * strand the request behind them; `SecretRedactor` leaves no form of a random secret in random echoes;
 * `isNonPublicAddress` catches every textual form of addresses in the refused ranges; `printable` (issue 22)
 * leaves no control character in upstream text bound for a terminal or a log.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { isNonPublicAddress } from '../../src/cds/address-guard.js';
import { CDSHooksService } from '../../src/cds/index.js';
import { printable } from '../../src/lib/printable.js';
import { REDACTED, SecretRedactor } from '../../src/lib/redact-secrets.js';
import { NoteReaderService } from '../../src/soap/service.js';
import { fuzz, runFuzz } from './lib/fuzz.js';
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

const SECRET_ALPHABET = 'abcXYZ019-_.~+/=%&:@ "\'\\é\u0000';

fuzz('fuzz: SecretRedactor leaves no form of a random secret in a random echo, and cuts after redacting', { seed: 0x5ec2e7, iterations: 1500 }, {
  generate(rng) {
    // Connection-string secrets are decoded text: no lone surrogate (which has no percent-encoded form).
    const wellFormed = (s: string): string => s.replace(/[\uD800-\uDFFF]/g, 'x');
    const secret = wellFormed(rng.string(1 + rng.int(24), SECRET_ALPHABET));
    const id = wellFormed(rng.string(1 + rng.int(10), SECRET_ALPHABET));
    const form = new URLSearchParams([['', secret]]).toString().slice(1);
    const lowHex = (s: string): string => s.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase());
    const forms = [secret, encodeURIComponent(secret), form, lowHex(form), lowHex(encodeURIComponent(secret)), JSON.stringify(secret).slice(1, -1),
      Buffer.from(`${new URLSearchParams([['', id]]).toString().slice(1)}:${form}`).toString('base64'), Buffer.from(`${id}:${secret}`).toString('base64')];
    const echo = Array.from({ length: 1 + rng.int(5) }, () => `${rng.string(rng.int(20))}${rng.pick(forms)}`).join('');
    return { secret, id, forms, echo, max: rng.chance(0.5) ? Infinity : 1 + rng.int(120) };
  },
  check({ secret, id, forms, echo, max }) {
    const out = new SecretRedactor({ secrets: [secret], basic: [[id, secret]] }).text(echo, max);
    assert.ok(out.length <= max);
    // Between the markers (and the cut), no form is left: split on the marker, check every piece.
    for (const piece of out.replace(/…$/, '').split(REDACTED)) {
      for (const f of forms) if (f.length >= 3) assert.ok(!piece.includes(f), `${JSON.stringify(f)} left in ${JSON.stringify(piece)}`);
    }
  },
});

const REFUSED: readonly [number[], number][] = [[[10], 8], [[127], 8], [[172, 16], 12], [[192, 168], 16], [[100, 64], 10], [[169, 254], 16], [[0], 8]];
const PUBLIC_FIRST = [1, 8, 9, 23, 45, 93, 151, 185, 203];

function ipv4In(rng: Random, prefix: number[], bits: number): number[] {
  const octets = [...prefix, ...Array.from({ length: 4 - prefix.length }, () => rng.int(256))];
  // Keep the network bits of the last given octet inside the range (172.16/12, 100.64/10).
  const last = prefix.length - 1;
  const free = prefix.length * 8 - bits;
  if (free > 0) octets[last] = prefix[last]! + rng.int(1 << free);
  return octets;
}

function textual(rng: Random, octets: number[]): string {
  const dotted = octets.join('.');
  const hex = `${((octets[0]! << 8) | octets[1]!).toString(16)}:${((octets[2]! << 8) | octets[3]!).toString(16)}`;
  const form = rng.pick([dotted, `::ffff:${dotted}`, `::ffff:${hex}`, `::FFFF:${dotted}`, `0:0:0:0:0:ffff:${hex}`]);
  return form.includes(':') && rng.chance(0.5) ? `[${form}]` : form;
}

fuzz('fuzz: isNonPublicAddress refuses every textual form of the refused IPv4 ranges and passes public ones', { seed: 0xadd2, iterations: 3000 }, {
  generate(rng) {
    if (rng.chance(0.7)) {
      const [prefix, bits] = rng.pick(REFUSED);
      return { address: textual(rng, ipv4In(rng, prefix, bits)), refused: true };
    }
    return { address: textual(rng, [rng.pick(PUBLIC_FIRST), rng.int(256), rng.int(256), rng.int(256)]), refused: false };
  },
  check({ address, refused }) {
    assert.equal(isNonPublicAddress(address), refused, address);
  },
});

/** Printable text with escape sequences, control characters and line breaks put in at random places. */
const HOSTILE = ['\x1b[2J', '\x1b]0;owned\x07', '\x1b]8;;https://x\x1b\\', '\x1bP1$r\x1b\\', '\x1b', '\x1bc', '\x9b31m', '\x9d0;t\x9c', '\x85', '\x7f', '\x00', '\r', '\n', '\r\n', '\x9f', '\x90'];

fuzz('fuzz: printable leaves no control character but tab, and changes nothing in text that has none', { seed: 0x7e57, iterations: 3000 }, {
  generate: (rng) => {
    const base = rng.string(rng.size(40), 'abc 123 ✓ é\t[];%');
    const plain = base.replace(/[\x00-\x08\x0a-\x1f\x7f-\x9f]/g, '');
    let text = base;
    for (let i = rng.int(4); i > 0; i--) {
      const at = rng.int(text.length + 1);
      text = text.slice(0, at) + rng.pick(HOSTILE) + text.slice(at);
    }
    return { plain, text, multiline: rng.chance(0.5) };
  },
  check: ({ plain, text, multiline }) => {
    assert.equal(printable(plain), plain);
    const out = printable(text, { multiline });
    assert.doesNotMatch(out, multiline ? /[\x00-\x08\x0b-\x1f\x7f-\x9f]/ : /[\x00-\x08\x0a-\x1f\x7f-\x9f]/);
    assert.equal(printable(out, { multiline }), out, 'printable twice is printable once');
  },
});
