/**
 * Workload 5: a ProcessDocument round trip with a 1 MB CDA through fhirgate's host (in its own process)
 * against a bare `saxes` parse of the same envelope bytes, sequentially, documents per second.
 * Run alone: `node --import tsx bench/notereader.ts`.
 */
import http from 'node:http';
import { SaxesParser } from 'saxes';
import { envelopeOf } from './lib/cda-envelope.js';
import { pinSelf, startPeer } from './lib/processes.js';
import { RUNS, summarize, type Summary } from './lib/stats.js';

export interface NoteReaderFigures {
  envelopeBytes: number;
  roundTripPerSecond: Summary;
  saxesPerSecond: Summary;
}

function post(port: number, agent: http.Agent, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ port, host: '127.0.0.1', path: '/notereader/', method: 'POST', agent, headers: {
      'content-type': 'text/xml; charset=utf-8', soapaction: 'ProcessDocument', 'content-length': body.length,
    } }, (res) => {
      let n = 0;
      res.on('data', (c: Buffer) => { n += c.length; });
      res.on('end', () => (res.statusCode === 200 ? resolve(n) : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The baseline: saxes reading the envelope the least a SOAP reader must, element names and the text of
 * each element (without a text handler saxes skips text, which is not reading the document).
 */
function saxesParse(text: string): number {
  const parser = new SaxesParser({ xmlns: true });
  let elements = 0;
  const texts: string[] = [];
  parser.on('opentag', () => { elements++; });
  parser.on('text', (t) => { texts.push(t); });
  parser.write(text).close();
  return elements + texts.join('').length;
}

export async function benchNoteReader(seconds = Number(process.env.BENCH_SECONDS ?? 2)): Promise<NoteReaderFigures> {
  pinSelf('client');
  const envelope = envelopeOf(1024 * 1024);
  const bytes = Buffer.from(envelope);
  const server = await startPeer(new URL('./servers/host-notereader.ts', import.meta.url));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const trips: number[] = [];
  const parses: number[] = [];
  try {
    await post(server.port, agent, bytes);
    for (let run = 0; run < RUNS; run++) {
      let n = 0;
      let t0 = performance.now();
      while (performance.now() - t0 < seconds * 1000) { await post(server.port, agent, bytes); n++; }
      trips.push(n / ((performance.now() - t0) / 1000));
      n = 0;
      t0 = performance.now();
      while (performance.now() - t0 < seconds * 1000) { saxesParse(envelope); n++; }
      parses.push(n / ((performance.now() - t0) / 1000));
    }
  } finally {
    agent.destroy();
    await server.stop();
  }
  return { envelopeBytes: bytes.length, roundTripPerSecond: summarize(trips), saxesPerSecond: summarize(parses) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const f = await benchNoteReader();
  console.log(`${(f.envelopeBytes / 1e6).toFixed(2)} MB envelope: round trip ${f.roundTripPerSecond.median.toFixed(1)}/s, bare saxes ${f.saxesPerSecond.median.toFixed(1)}/s, ratio ${(f.roundTripPerSecond.median / f.saxesPerSecond.median).toFixed(2)}x`);
}
