/**
 * Workload: the worst NoteReader bodies we can build (issue 22.1), each about 1 MiB, beside a plain CDA.
 * For each: the envelope reader's CPU time per MiB (the fastest of the runs, `process.cpuUsage`, so that
 * other processes on the machine count less), and the longest event-loop block while a host in this
 * process answers the body over a socket (`monitorEventLoopDelay`), with the answer's status and fault.
 * Run alone: `node --import tsx bench/notereader-worst.ts`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { createServiceAPI } from '../src/index.js';
import { NoteReaderService } from '../src/soap/index.js';
import { readEnvelope } from '../src/soap/read-envelope.js';
import { envelopeOf } from './lib/cda-envelope.js';
import { RUNS, summarize, type Summary } from './lib/stats.js';

const MIB = 1024 * 1024;
const NS = 'urn:epic-com:Common.2013.Services';

/** An envelope whose Document holds `document` as it is (raw XML or base64 text). */
const envelope = (document: string): string =>
  `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" xmlns:u="${NS}"><s:Body><u:ProcessDocument>` +
  `<u:SessionID>bench</u:SessionID><u:WorkType>2</u:WorkType><u:OrganizationID>Bench</u:OrganizationID>` +
  `<u:Document>${document}</u:Document></u:ProcessDocument></s:Body></s:Envelope>`;

/** `piece` repeated to about `bytes` characters. */
const fill = (piece: string, bytes = MIB): string => piece.repeat(Math.max(1, Math.floor(bytes / piece.length)));
const attrs = (n: number, name: (i: number) => string, value = '1'): string => Array.from({ length: n }, (_, i) => `${name(i)}="${value}"`).join(' ');

function rawCDA(): string {
  const cda = readFileSync(new URL('../test/fixtures/cda/uclh_cda.xml', import.meta.url), 'utf8').replace(/^<\?xml[^>]*\?>/, '');
  return `<docs>${fill(cda)}</docs>`;
}

/** The inputs: name → envelope text. The refused one shows what a refusal costs. */
export function worstInputs(): Record<string, string> {
  const base64 = Buffer.from(fill('<paragraph>BP 140/72</paragraph>\n', 0.75 * MIB)).toString('base64');
  return {
    'plain CDA, base64 (reference)': envelopeOf(MIB),
    'plain CDA, raw XML (reference)': envelope(rawCDA()),
    'attributes: 128 on every element (the limit)': envelope(`<r>${fill(`<a ${attrs(128, (i) => `a${i}`)}/>`)}</r>`),
    'namespaces: 32 xmlns on every element (the limit)': envelope(`<r>${fill(`<a ${attrs(32, (i) => `xmlns:p${i}`, 'urn:x')}/>`)}</r>`),
    'attribute values of 65,536 characters (the limit)': envelope(`<r>${fill(`<a v="${'v'.repeat(65_536)}"/>`)}</r>`),
    'elements: <a/> repeated': envelope(`<r>${fill('<a/>')}</r>`),
    'deep nesting: 250 levels, repeated': envelope(`<r>${fill(`${'<a>'.repeat(250)}${'</a>'.repeat(250)}`)}</r>`),
    'deep nesting with prefixes: 250 levels': envelope(`<p:r xmlns:p="urn:p">${fill(`${'<p:a p:x="1">'.repeat(250)}${'</p:a>'.repeat(250)}`)}</p:r>`),
    'long names: one 1 MiB element name': envelope(`<${'n'.repeat(MIB)}/>`),
    'entities and character references': envelope(`<t>${fill('&amp;&#65;&#x42;&lt;')}</t>`),
    'huge text: 1 MiB in one element': envelope(`<t>${fill('plain words and more words ')}</t>`),
    'base64 with junk: CRLF and spaces every 4 characters': envelope(base64.replace(/(.{4})/g, '$1\r\n ')),
    'refused: 700,000 attributes on one element (7.9 MiB)': envelope(`<a ${attrs(700_000, (i) => `a${i}`)}/>`),
  };
}

export interface WorstFigures {
  name: string;
  mib: number;
  /** CPU ms per MiB of the envelope reader, fastest run. */
  parseMsPerMiB: Summary;
  /** The longest event-loop block (ms) while the host answered it. */
  longestBlockMs: Summary;
  status: number;
  fault: string;
}

async function* once(body: Buffer): AsyncIterable<Buffer> {
  for (let i = 0; i < body.length; i += 64 * 1024) yield body.subarray(i, i + 64 * 1024);
}

async function parseMs(body: Buffer): Promise<number> {
  const start = process.cpuUsage();
  try {
    await readEnvelope(once(body), { maxDepth: 300, maxElements: 2_000_000 });
  } catch {
    // A refusal is a figure too.
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** POSTs `body`; a host that answers early and closes may reset the socket under the rest of the body. */
function post(port: number, body: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    let answered: { status: number; text: string } | undefined;
    const req = http.request({ port, host: '127.0.0.1', path: '/notereader/', method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8', 'content-length': body.length } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { if (text.length < 4096) text += c; });
      res.on('end', () => resolve((answered = { status: res.statusCode ?? 0, text })));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (answered === undefined) resolve({ status: 0, text: `<faultstring>connection ${err.code ?? err.message}</faultstring>` });
    });
    req.end(body);
  });
}

export async function benchNoteReaderWorst(): Promise<WorstFigures[]> {
  const nr = new NoteReaderService({ bodyLimit: 16 * MIB, maxElements: 2_000_000, maxDepth: 300, dispatcher: { emit() {}, register: () => () => {}, drain: async () => {} } });
  nr.method('ProcessDocument', () => ({ document: 'ok', error: '' }));
  const app = createServiceAPI({ title: 'bench', apiKeys: [], logger: { debug() {}, info() {}, warn() {}, error() {} } });
  app.registerService(nr, { path: '/notereader' });
  const server = await app.listen(0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  const out: WorstFigures[] = [];
  try {
    for (const [name, text] of Object.entries(worstInputs())) {
      const body = Buffer.from(text);
      const mib = body.length / MIB;
      const parses: number[] = [];
      const blocks: number[] = [];
      let answer = { status: 0, text: '' };
      for (let run = 0; run < RUNS; run++) {
        parses.push((await parseMs(body)) / mib);
        const delay = monitorEventLoopDelay({ resolution: 1 });
        delay.enable();
        answer = await post(port, body);
        delay.disable();
        blocks.push(delay.max / 1e6);
      }
      const fault = /<faultstring>([^<]*)<\/faultstring>/.exec(answer.text)?.[1] ?? '';
      out.push({ name, mib, parseMsPerMiB: summarize(parses), longestBlockMs: summarize(blocks), status: answer.status, fault });
    }
  } finally {
    await app.close();
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const f of await benchNoteReaderWorst()) {
    console.log(`${f.name}: ${f.mib.toFixed(2)} MiB, ${f.parseMsPerMiB.median.toFixed(0)} ms/MiB CPU, longest block ${f.longestBlockMs.median.toFixed(0)} ms, ${f.status} ${f.fault}`);
  }
}
