/**
 * Fuzz: the SOAP envelope reader and the NoteReader POST route on mutated versions of the fixture
 * request (byte flips, truncation, DOCTYPE and entities, deep nesting, random bytes, invalid UTF-8,
 * invalid base64, other namespaces), and hostile shapes around the attribute limits (attributes and
 * namespace declarations per element, attribute value length, prefixed deep nesting). Only coded SOAP client errors (`ERR_SOAP_CLIENT`: Client or
 * VersionMismatch faults) or success; never a Server fault for what a client sent.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { MOUNT } from '../../src/mount/index.js';
import { NoteReaderService } from '../../src/soap/index.js';
import { readEnvelope } from '../../src/soap/read-envelope.js';
import { fuzz, settle } from './lib/fuzz.js';
import type { Random } from './lib/random.js';
import { fakeRequest } from '../support/route-request.js';
import { join } from 'node:path';
import { ROOT } from '../support/code-tree.js';

const FIXTURE = readFileSync(join(ROOT, 'test/fixtures/cda/soap_request.xml'));
const LIMITS = { maxDepth: 32, maxElements: 300 };
const MAX_BODY = 64 * 1024;

const INSERTS = [
  '<!DOCTYPE Envelope [<!ENTITY x "boom">]>', '<!DOCTYPE x SYSTEM "file:///etc/passwd">', '<!ENTITY e SYSTEM "http://evil.example/">', '&x;', '&e;',
  '&lt;', '&amp;', '&#0;', '&#x110000;', '&#65;', '&#xD800;', '<![CDATA[<a>]]>', ']]>', '<?xml version="1.0" encoding="UTF-16"?>',
  '<?xml version="1.0" encoding="ISO-8859-1"?>', '<?pi data?>', '<!-- c -->', '<!--', '<a:b>', '</x>', '<x xmlns:p="">', 'xmlns=""', '<p:q/>',
  '<urn:Document>%%%</urn:Document>', '<urn:Document><cda xmlns="urn:hl7-org:v3"><x/></cda></urn:Document>', '\u0000', '\ufeff', '"', "'",
];
const BAD_UTF8 = [[0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xff], [0xe2, 0x82], [0xc0, 0xaf]];
const BASE64_NOISE = ['', '=', 'dGVzdGluZw', 'dGVzdGluZw=', 'dGVz dGlu Zw==', 'dGVz\r\ndGluZw==', '-_-_', '////', 'gA==', '/w==', '====', 'dGVzdGluZw==dGVz', '%%%%'];

function nested(rng: Random): Buffer {
  const depth = 1 + rng.int(60);
  const inner = `${'<n>'.repeat(depth)}text${'</n>'.repeat(depth)}`;
  const where = rng.int(3);
  const text = FIXTURE.toString('utf8');
  if (where === 0) return Buffer.from(text.replace('dGVzdGluZw==', inner));
  if (where === 1) return Buffer.from(text.replace('<soapenv:Header/>', `<soapenv:Header>${inner}</soapenv:Header>`));
  return Buffer.from(text.replace('</urn:ProcessDocument>', `${'<urn:Extra/>'.repeat(rng.int(400))}</urn:ProcessDocument>`));
}

function generate(rng: Random): Buffer {
  const text = FIXTURE.toString('utf8');
  switch (rng.int(8)) {
    case 0: return rng.mutateBytes(FIXTURE);
    case 1: return FIXTURE.subarray(0, rng.int(FIXTURE.length));
    case 2: {
      const at = rng.int(text.length);
      return Buffer.from(text.slice(0, at) + rng.pick(INSERTS) + text.slice(at));
    }
    case 3: return nested(rng);
    case 4: return rng.bytes();
    case 5: {
      const at = rng.int(FIXTURE.length);
      return Buffer.concat([FIXTURE.subarray(0, at), Buffer.from(rng.pick(BAD_UTF8)), FIXTURE.subarray(at)]);
    }
    case 6: return Buffer.from(text.replace('dGVzdGluZw==', rng.chance(0.5) ? rng.pick(BASE64_NOISE) : rng.mutate('dGVzdGluZw==')));
    default: return Buffer.from(rng.mutate(text.replace('http://schemas.xmlsoap.org/soap/envelope/', rng.pick([
      'http://schemas.xmlsoap.org/soap/envelope/', 'http://www.w3.org/2003/05/soap-envelope', '', 'urn:other',
    ])), 1 + rng.int(2)));
  }
}

async function* stream(parts: readonly Buffer[]): AsyncIterable<Buffer> {
  yield* parts;
}

fuzz('readEnvelope reads mutated envelopes or rejects with ERR_SOAP_CLIENT', { seed: 0x50a9, iterations: 2000 }, {
  generate: (rng) => rng.pieces(generate(rng)),
  async check(parts) {
    const outcome = await settle(['ERR_SOAP_CLIENT'], () => readEnvelope(stream(parts), LIMITS));
    if (outcome.ok) assert.ok(outcome.value.operation.length > 0);
    else assert.match(outcome.error.message, /\S/);
  },
});

/** One element with `attributes` attributes, `declarations` of them `xmlns:p` ones, the first value `length` long, nested `depth` deep. */
interface Shape {
  attributes: number;
  declarations: number;
  length: number;
  depth: number;
}

function shapeXml({ attributes, declarations, length, depth }: Shape, rng: Random): string {
  const names = Array.from({ length: attributes }, (_, i) => (i < declarations ? `xmlns:p${i}` : `${rng.chance(0.3) && declarations > 0 ? 'p0:' : ''}a${i}`));
  const attrs = names.map((name, i) => `${name}="${i === 0 ? 'v'.repeat(length) || 'urn:d' : rng.pick(['1', 'urn:x', '&amp;', '&#65;'])}"`).join(' ');
  return `${'<p:n xmlns:p="urn:p">'.repeat(depth)}<e ${attrs}/>${'</p:n>'.repeat(depth)}`;
}

fuzz('readEnvelope refuses an element over an attribute limit, at that limit, and reads one within them', { seed: 0xa775, iterations: 300 }, {
  generate: (rng) => {
    const attributes = rng.int(160);
    const shape = { attributes, declarations: Math.min(attributes, rng.int(45)), length: rng.chance(0.1) ? 65_500 + rng.int(80) : rng.int(40), depth: rng.int(LIMITS.maxDepth - 5) };
    return { shape, parts: rng.pieces(Buffer.from(FIXTURE.toString('utf8').replace('dGVzdGluZw==', shapeXml(shape, rng)))) };
  },
  async check({ shape, parts }) {
    const outcome = await settle(['ERR_SOAP_CLIENT'], () => readEnvelope(stream(parts), LIMITS));
    // The first attribute carries the long value, the declarations come next: the first limit met is named.
    const expected = shape.attributes > 0 && shape.length > 65_536 ? /attribute value longer than 65536/
      : shape.declarations > 32 ? /more than 32 namespace declarations/
        : shape.attributes > 128 ? /more than 128 attributes/ : undefined;
    if (expected === undefined) assert.ok(outcome.ok, `refused within the limits: ${outcome.ok ? '' : outcome.error.message}`);
    else assert.match(outcome.ok ? 'read' : outcome.error.message, expected);
  },
});

fuzz('the NoteReader POST route answers mutated requests with 200 or a Client fault, never a Server fault', { seed: 0x7e4d, iterations: 1200 }, {
  generate: (rng) => ({
    parts: rng.pieces(rng.chance(0.02) ? Buffer.concat([FIXTURE, Buffer.alloc(MAX_BODY)]) : generate(rng)),
    soapAction: rng.pick([undefined, '"ProcessDocument"', 'urn:epic-com:Common.2013.Services#ProcessDocument', 'Other', '""', '"']),
  }),
  async check({ parts, soapAction }) {
    const nr = new NoteReaderService({ maxDepth: LIMITS.maxDepth, maxElements: LIMITS.maxElements, bodyLimit: MAX_BODY, dispatcher: { emit() {}, register: () => () => {}, drain: async () => {} } });
    let calls = 0;
    nr.method('ProcessDocument', (req) => ((calls += 1), { document: req.document }));
    const post = nr[MOUNT]().routes().find((r) => r.method === 'POST');
    assert.ok(post !== undefined);
    const headers = { 'content-type': 'text/xml; charset=utf-8', ...(soapAction === undefined ? {} : { soapaction: soapAction }) };
    const reply = await post.handle(fakeRequest({ method: 'POST', requestId: 'fuzz', url: 'http://127.0.0.1/notereader', headers, body: parts }));
    const body = String(reply.body);
    assert.equal(reply.headers?.['content-type'], 'text/xml; charset=utf-8');
    if (reply.status === 200) {
      assert.equal(calls, 1, 'a 200 answer comes from the handler');
      assert.match(body, /ProcessDocumentResponse/);
      return;
    }
    assert.ok(reply.status === 500 || reply.status === 413, `status ${reply.status}`);
    const faultCode = /<faultcode>[^<:]*:([^<]*)<\/faultcode>/.exec(body)?.[1];
    assert.ok(faultCode === 'Client' || faultCode === 'VersionMismatch', `fault code ${faultCode} in ${body.slice(0, 400)}`);
  },
});
