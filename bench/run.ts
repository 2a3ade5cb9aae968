/**
 * `npm run bench`: every workload side by side in one run, a table of ratios on the terminal, and every
 * figure (median of the runs, with min and max) written to bench/RESULTS.md with the machine and date.
 * `BENCH_RUNS` (default 5) and `BENCH_SECONDS` change the run count and length.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { benchColdStart } from './cold-start.js';
import { benchGatewayRead } from './gateway-read.js';
import { benchHost } from './host.js';
import { benchMemory } from './memory.js';
import { benchNoteReader } from './notereader.js';
import { benchSyncLatency } from './sync-latency.js';
import { benchTokenBurst } from './token-burst.js';
import { fmt, RUNS } from './lib/stats.js';

const lines: string[] = [];
const say = (line = '') => { console.log(line); lines.push(line); };
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

say('# fhirgate benchmark results');
say();
say(`- date: ${new Date().toISOString()}`);
say(`- machine: ${os.cpus()[0]?.model ?? 'unknown cpu'}, ${os.availableParallelism()} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}`);
say(`- node ${process.version}; ${RUNS} runs per figure, contenders alternated run by run; figures are median (min–max)`);
say('- servers and load generators are pinned to different cores with taskset where there are two or more');

say('\n## 1. Gateway read (fixed-response server in its own process)\n');
for (const f of await benchGatewayRead()) {
  const raw = f.contenders['raw node:http Agent']!.rps.median;
  const undici = f.contenders['undici Pool']!.rps.median;
  say(`### concurrency ${f.concurrency}\n`);
  say('| client | req/s | vs raw node:http | vs undici | p50 ms | p99 ms | errors |');
  say('|---|---|---|---|---|---|---|');
  for (const [name, c] of Object.entries(f.contenders)) {
    say(`| ${name} | ${fmt(c.rps)} | ${ratio(c.rps.median, raw)} | ${ratio(c.rps.median, undici)} | ${fmt(c.p50, 3)} | ${fmt(c.p99, 3)} | ${c.errors} |`);
  }
  say();
}

say('## 2. Sync gateway sequential latency\n');
const sync = await benchSyncLatency();
say(`| gateway | p50 ms |\n|---|---|\n| AsyncFHIRGateway | ${fmt(sync.asyncP50, 3)} |\n| FHIRGateway | ${fmt(sync.syncP50, 3)} |`);
say(`\nsync / async: ${fmt(sync.ratio, 2)} (target ≤ 1.25×)\n`);

say('## 3. Token single flight\n');
const token = await benchTokenBurst();
say(`${token.calls} concurrent reads on a cold cache: **${token.tokenRequests}** token request(s) (target 1), ${token.errors} errors, ${token.seconds.toFixed(2)} s\n`);

say('## 4. Host: transform endpoint (autocannon in its own process)\n');
for (const f of await benchHost()) {
  const bare = f.contenders['bare node:http']!.rps.median;
  say(`### ${f.connections} connections\n`);
  say('| server | req/s | vs bare node:http | p99 ms | errors |');
  say('|---|---|---|---|---|');
  for (const [name, c] of Object.entries(f.contenders)) say(`| ${name} | ${fmt(c.rps)} | ${ratio(c.rps.median, bare)} | ${fmt(c.p99)} | ${c.errors} |`);
  say();
}

say('## 5. NoteReader: 1 MB CDA round trip vs bare saxes parse\n');
const nr = await benchNoteReader();
say(`| what | per second |\n|---|---|\n| ProcessDocument round trip (${(nr.envelopeBytes / 1e6).toFixed(2)} MB envelope) | ${fmt(nr.roundTripPerSecond, 1)} |\n| bare saxes parse of the same bytes | ${fmt(nr.saxesPerSecond, 1)} |`);
say(`\nround trip / bare parse: ${ratio(nr.roundTripPerSecond.median, nr.saxesPerSecond.median)} (target ≥ 0.7×)\n`);

say('## 6. Cold start (import of each built entry point, fresh process)\n');
say('| entry | ms |\n|---|---|');
for (const [entry, s] of Object.entries(benchColdStart())) say(`| \`fhirgate${entry === '.' ? '' : entry.slice(1)}\` | ${fmt(s, 1)} |`);

say('\n## 7. Memory (RSS)\n');
const mem = await benchMemory();
say('| what | start MB | end MB |\n|---|---|---|');
say(`| ${mem.gateway.requests.toLocaleString('en-US')} gateway reads | ${mem.gateway.startMB.toFixed(1)} | ${mem.gateway.endMB.toFixed(1)} |`);
say(`| ${mem.host.requests.toLocaleString('en-US')} host requests | ${mem.host.startMB.toFixed(1)} | ${mem.host.endMB.toFixed(1)} |`);

writeFileSync(new URL('./RESULTS.md', import.meta.url), `${lines.join('\n')}\n`);
console.log('\nwritten to bench/RESULTS.md');
