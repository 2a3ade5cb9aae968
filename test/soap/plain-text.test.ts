import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SaxesParser } from 'saxes';
import { clip } from '../../src/soap/fault.js';
import { advance, plainEnd, stopBeforePlain } from '../../src/soap/plain-text.js';
import { createSecureParser } from '../../src/soap/secure-parser.js';

const LIMITS = { maxDepth: 64, maxElements: 10_000 };
const B64 = Buffer.from('a document long enough to be handed on around the parser, '.repeat(12)).toString('base64');

/**
 * What a reader sees: opens with depth, closes with the parser position, text joined between them, the
 * error. Text not yet followed by a tag when the parser throws is left out: plain text may be handed on
 * before saxes would have reported it, and every reader drops what it read when the parser throws.
 */
function secureLog(pieces: readonly string[]): string[] {
  const log: string[] = [];
  let text = '';
  const flush = () => {
    if (text !== '') log.push(`text ${JSON.stringify(text)}`);
    text = '';
  };
  const parser = createSecureParser(LIMITS, 'ERR_SOAP_CLIENT', {
    open: (tag, depth) => {
      flush();
      log.push(`open ${tag.name} ${depth} ${JSON.stringify(tag.attributes)}`);
    },
    close: (tag, depth) => {
      flush();
      log.push(`close ${tag.name} ${depth} at ${parser.position}`);
    },
    text: (t) => {
      text += t;
    },
  });
  try {
    for (const piece of pieces) parser.write(piece);
    parser.close();
    flush();
  } catch (err) {
    log.push(`error ${(err as Error).message}`);
  }
  return log;
}

/** The same log from saxes alone, fed the whole text at once: what the secure parser must match. */
function saxesLog(whole: string): string[] {
  const log: string[] = [];
  let text = '';
  let depth = 0;
  const flush = () => {
    if (text !== '') log.push(`text ${JSON.stringify(text)}`);
    text = '';
  };
  const parser = new SaxesParser({ xmlns: true, position: true });
  parser.on('doctype', () => {
    throw new Error('DOCTYPE is not allowed');
  });
  parser.on('opentag', (tag) => {
    flush();
    depth += 1;
    log.push(`open ${tag.name} ${depth} ${JSON.stringify(tag.attributes)}`);
  });
  parser.on('closetag', (tag) => {
    flush();
    log.push(`close ${tag.name} ${depth} at ${parser.position}`);
    depth -= 1;
  });
  parser.on('text', (t) => {
    text += t;
  });
  parser.on('cdata', (t) => {
    text += t;
  });
  try {
    parser.write(whole).close();
    flush();
  } catch (err) {
    const message = (err as Error).message;
    log.push(`error Invalid XML: ${message === 'DOCTYPE is not allowed' ? message : clip(message)}`);
  }
  return log;
}

const DOCUMENTS: Record<string, string> = {
  'a long base64 Document': `<e:Envelope xmlns:e="urn:e"><e:Body><Doc>${B64}</Doc></e:Body></e:Envelope>`,
  'base64 wrapped in lines, with CRLF': `<r><Doc>\r\n${B64.replace(/(.{76})/g, '$1\r\n')}\r\n</Doc></r>`,
  'a > in an attribute value before the Document': `<r a="x>${B64}" b='>${B64}'><Doc k="v>">${B64}</Doc></r>`,
  'a comment holding base64-looking text': `<r><!-- x>${B64} --><Doc><!--->${B64}-->${B64}</Doc></r>`,
  'a processing instruction holding base64-looking text': `<r><?pi x>${B64}?>${B64}<Doc/></r>`,
  'entity and character references inside the Document': `<r><Doc>${B64}&amp;${B64}&#65;&#x42;&lt;${B64}&gt;</Doc></r>`,
  'CDATA inside the Document': `<r><Doc><![CDATA[${B64}>]]>${B64}<![CDATA[<x>&amp;]]></Doc></r>`,
  'non-ASCII text and line ends of every kind': `<r><Doc>${B64}é✓😀\r${B64}\u2028${B64}\u0085</Doc></r>`,
  'a control character in the Document': `<r><Doc>${B64}\u0001${B64}</Doc></r>`,
  'a control character on a later line': `<r><Doc>${B64}\n${B64}\n${B64.slice(0, 30)}\u001f${B64}</Doc></r>`,
  'DEL, U+FFFE and a lone surrogate in the Document': `<r><Doc>${B64}\u007f${B64}\uFFFE</Doc><Doc>${B64}\uD800</Doc></r>`,
  ']]> in the Document': `<r><Doc>${B64}]]>${B64}</Doc></r>`,
  ']] and > apart in the Document': `<r><Doc>${B64}]]${B64}>${B64}</Doc></r>`,
  'a mismatched end tag after the Document': `<r><Doc>${B64}\n${B64}</Dog></r>`,
  'an undefined entity after the Document': `<r><Doc>${B64}\n${B64}&nope;</Doc></r>`,
  'text after the root': `<r><Doc>${B64}</Doc></r>${B64}`,
  'text before the root': `${B64}<r/>`,
  'white space around the root': `\n  <r>${B64}</r>\n  `,
  'a self-closing tag then text': `<r><Doc/>${B64}<x/>${B64}</r>`,
  'a DOCTYPE after base64-looking text': `<r>${B64}</r><!DOCTYPE r>`,
  'an unclosed root': `<r><Doc>${B64}`,
  'XML 1.1 with NEL and C1 controls': `<?xml version="1.1"?><r><Doc>${B64}\u0085${B64}\u0086</Doc></r>`,
};

test('the parser reports the same elements, text, positions and errors as saxes alone, for markup around plain text', () => {
  for (const [name, xml] of Object.entries(DOCUMENTS)) {
    assert.deepEqual(secureLog([xml]), saxesLog(xml), name);
  }
});

test('wherever the text is cut into pieces, the parser reports what saxes reports for the whole', () => {
  const samples = [
    DOCUMENTS['a long base64 Document']!,
    DOCUMENTS['a > in an attribute value before the Document']!,
    DOCUMENTS['entity and character references inside the Document']!,
    DOCUMENTS['CDATA inside the Document']!,
    DOCUMENTS['base64 wrapped in lines, with CRLF']!.slice(0, 700) + '</Doc></r>',
    `<r><Doc>${B64.slice(0, 40)}\u0001</Doc></r>`,
  ];
  for (const xml of samples) {
    const expected = saxesLog(xml);
    for (let cut = 0; cut <= xml.length; cut += 1) {
      assert.deepEqual(secureLog([xml.slice(0, cut), xml.slice(cut)]), expected, `cut at ${cut}`);
    }
    for (const size of [1, 7, 64, 509]) {
      const pieces = [];
      for (let i = 0; i < xml.length; i += size) pieces.push(xml.slice(i, i + size));
      assert.deepEqual(secureLog(pieces), expected, `pieces of ${size}`);
    }
  }
});

test('the depth and element limits still hold inside plain text', () => {
  const deep = `<r>${'<d>'.repeat(70)}${B64}${'</d>'.repeat(70)}</r>`;
  assert.deepEqual(secureLog([deep]).at(-1), 'error Invalid XML: nesting deeper than 64 elements');
  const many = `<r>${`<e>${B64.slice(0, 10)}</e>`.repeat(10_001)}</r>`;
  assert.deepEqual(secureLog([many]).at(-1), 'error Invalid XML: more than 10000 elements');
});

test('plain text ends at markup, references, brackets, carriage returns, controls and non-ASCII', () => {
  assert.equal(plainEnd('QUJD\nREVG \t+/=</Doc>', 0), 14);
  for (const stop of ['<', '&', ']', '\r', '\u0000', '\u0008', '\u000b', '\u001f', '\u007f', 'é', '\u2028', '\uD83D\uDE00']) {
    assert.equal(plainEnd(`QUJD${stop}QUJD`, 0), 4, JSON.stringify(stop));
    assert.equal(plainEnd(`é QUJD${stop}QUJD`, 2), 6, `after non-ASCII: ${JSON.stringify(stop)}`);
  }
  assert.equal(plainEnd('QUJD', 4), 4);
  assert.equal(plainEnd('>"\'!~ ', 0), 6);
});

test('the parser stops only after a > followed by enough plain text', () => {
  const run = 'Q'.repeat(600);
  assert.equal(stopBeforePlain(`<a><b>${run}</b></a>`, 0, 512), 6);
  assert.equal(stopBeforePlain(`<a><b>${run.slice(0, 100)}</b></a>`, 0, 512), 114, 'no place: the length');
  assert.equal(stopBeforePlain(`<a><b>${run.slice(0, 100)}`, 0, 512), 6, 'plain to the end of the piece');
  assert.equal(stopBeforePlain(`<a><b>${run.slice(0, 100)}&amp;${run}</b></a>`, 0, 512), 719, 'plain text cut short by a reference');
  assert.equal(stopBeforePlain('no markup at all', 0, 512), 16);
  assert.deepEqual(advance({ line: 1, column: 4 }, 'AB\nCDE'), { line: 2, column: 3 });
  assert.deepEqual(advance({ line: 3, column: 4 }, 'ABC'), { line: 3, column: 7 });
});
