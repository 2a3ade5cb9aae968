/**
 * `npm run bench [-- name ...]`: the workloads side by side (all of them, or only those named:
 * gateway-read, sync-latency, token-burst, host, facade, host-features, e2e-transform, notereader,
 * notereader-worst, cold-start, memory, soak), a table of ratios on the terminal, each workload's figures
 * (median of the runs, with min and max) written to its own section of bench/RESULTS.md, and every
 * contender's median/min/max and ratio to its baseline merged into bench/results.json. `BENCH_RUNS`
 * (default 5) and `BENCH_SECONDS` change the run count and length.
 */
import { benchColdStart } from './cold-start.js';
import { benchFacade, benchFacadeLatency } from './facade.js';
import { benchGatewayRead } from './gateway-read.js';
import { benchHost, E2E_SERVERS, FEATURE_SERVERS, type HostFigures } from './host.js';
import { benchMemory } from './memory.js';
import { benchNoteReader } from './notereader.js';
import { benchNoteReaderWorst } from './notereader-worst.js';
import { caseOf, machine, writeResultsJson, writeSection, type CaseJson, type WorkloadJson } from './lib/report.js';
import { fmt, RUNS, summarize } from './lib/stats.js';
import { benchSoak, soakClean, soakRunsTable } from './soak.js';
import { benchSyncLatency } from './sync-latency.js';
import { benchTokenBurst } from './token-burst.js';

interface Outcome {
  title: string;
  markdown: string;
  cases: CaseJson[];
  /** How the figures were taken, when not the usual `RUNS` runs per figure. */
  method?: string;
}

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

/** A host-style table per connection count: every contender against `baseline` and `other`, with the target of `other` / `baseline` when given. */
function hostOutcome(title: string, figures: HostFigures[], baseline: string, other: string, target?: number): Outcome {
  const md: string[] = [];
  const cases: CaseJson[] = [];
  for (const f of figures) {
    const base = f.contenders[baseline]!.rps.median;
    const second = f.contenders[other]!.rps.median;
    md.push(`### ${f.connections} connections\n`, `| server | req/s | vs ${baseline} | vs ${other} | p99 ms | server CPU µs/request | server core busy | errors |`, '|---|---|---|---|---|---|---|---|');
    for (const [name, c] of Object.entries(f.contenders)) md.push(`| ${name} | ${fmt(c.rps)} | ${ratio(c.rps.median, base)} | ${ratio(c.rps.median, second)} | ${fmt(c.p99)} | ${fmt(c.cpu, 1)} | ${fmt(c.busy, 2)} | ${c.errors} |`);
    if (target !== undefined) md.push('', `${other} / ${baseline}: ${ratio(second, base)} (target ≥ ${target.toFixed(2)}×); requests per server CPU-second: ${ratio(f.contenders[baseline]!.cpu.median, f.contenders[other]!.cpu.median)}`);
    md.push('');
    cases.push(caseOf(`${f.connections} connections`, 'req/s', 'higher', baseline, Object.fromEntries(Object.entries(f.contenders).map(([n, c]) => [n, c.rps]))));
  }
  return { title, markdown: md.join('\n'), cases };
}
const one = (x: number) => summarize([x]);

const WORKLOADS: Record<string, () => Promise<Outcome>> = {
  'gateway-read': async () => {
    const md: string[] = [];
    const cases: CaseJson[] = [];
    for (const f of await benchGatewayRead()) {
      const raw = f.contenders['raw node:http Agent']!;
      const undici = f.contenders['undici Pool']!.rps.median;
      md.push(`### concurrency ${f.concurrency}\n`, '| client | req/s | vs raw node:http | vs undici | CPU µs per call | CPU vs raw node:http | p50 ms | p99 ms | errors |', '|---|---|---|---|---|---|---|---|---|');
      for (const [name, c] of Object.entries(f.contenders)) {
        md.push(`| ${name} | ${fmt(c.rps)} | ${ratio(c.rps.median, raw.rps.median)} | ${ratio(c.rps.median, undici)} | ${fmt(c.cpuUs, 1)} | ${ratio(raw.cpuUs.median, c.cpuUs.median)} | ${fmt(c.p50, 3)} | ${fmt(c.p99, 3)} | ${c.errors} |`);
      }
      const gateway = f.contenders['fhirgate AsyncFHIRGateway']!;
      const where = f.pinned ? 'client on core 0, server on the last core' : 'not pinned: no taskset';
      md.push('', `CPU per call, raw node:http Agent / fhirgate (${where}): ${ratio(raw.cpuUs.median, gateway.cpuUs.median)} (target ≥ 0.90×)`, '');
      cases.push(caseOf(`concurrency ${f.concurrency}`, 'req/s', 'higher', 'raw node:http Agent', Object.fromEntries(Object.entries(f.contenders).map(([n, c]) => [n, c.rps]))));
      cases.push(caseOf(`concurrency ${f.concurrency}, CPU per call`, 'µs', 'lower', 'raw node:http Agent', Object.fromEntries(Object.entries(f.contenders).map(([n, c]) => [n, c.cpuUs]))));
    }
    return { title: 'Gateway read (fixed-response server in its own process)', markdown: md.join('\n'), cases };
  },
  'sync-latency': async () => {
    const s = await benchSyncLatency();
    return {
      title: 'Sync gateway sequential latency',
      markdown: `| gateway | p50 ms |\n|---|---|\n| AsyncFHIRGateway | ${fmt(s.asyncP50, 3)} |\n| FHIRGateway | ${fmt(s.syncP50, 3)} |\n\nsync / async, run by run: ${fmt(s.ratio, 2)} (target ≤ 1.20×)`,
      cases: [caseOf('sequential read p50', 'ms', 'lower', 'AsyncFHIRGateway', { AsyncFHIRGateway: s.asyncP50, FHIRGateway: s.syncP50 })],
    };
  },
  'token-burst': async () => {
    const t = await benchTokenBurst();
    return {
      title: 'Token single flight',
      markdown: `${t.calls} concurrent reads on a cold cache: **${t.tokenRequests}** token request(s) (target 1), ${t.errors} errors, ${t.seconds.toFixed(2)} s`,
      cases: [caseOf(`${t.calls} reads on a cold cache`, 'token requests', 'lower', 'target', { target: one(1), 'AsyncFHIRGateway': one(t.tokenRequests) })],
    };
  },
  host: async () => hostOutcome('Host: transform endpoint (autocannon in its own process)', await benchHost(), 'bare node:http', 'Fastify 5'),
  facade: async () => {
    const md: string[] = [];
    const cases: CaseJson[] = [];
    for (const f of await benchFacade()) {
      const direct = f.contenders['direct read']!;
      const replyFrom = f.contenders['@fastify/reply-from']!;
      const facade = f.contenders['fhirgate facade (policy + audit)']!;
      md.push(`### ${f.connections} connections\n`, '| server | req/s | vs reply-from | p50 ms | p99 ms | errors |', '|---|---|---|---|---|---|');
      for (const [name, c] of Object.entries(f.contenders)) md.push(`| ${name} | ${fmt(c.rps)} | ${ratio(c.rps.median, replyFrom.rps.median)} | ${fmt(c.p50, 2)} | ${fmt(c.p99, 2)} | ${c.errors} |`);
      md.push('', `facade / reply-from: ${ratio(facade.rps.median, replyFrom.rps.median)} (target ≥ 0.80×); facade p50 − direct p50: ${(facade.p50.median - direct.p50.median).toFixed(2)} ms (autocannon's whole milliseconds, queueing at this load; target < 0.3 ms)`, '');
      cases.push(caseOf(`${f.connections} connections`, 'req/s', 'higher', '@fastify/reply-from', Object.fromEntries(Object.entries(f.contenders).map(([n, c]) => [n, c.rps]))));
    }
    const l = await benchFacadeLatency();
    const direct = l.contenders['direct read']!;
    md.push(`### 1 connection, one request at a time (${l.requests} timed, µs)\n`, '| server | p50 µs | added p50 over the direct read, µs | p99 µs | errors |', '|---|---|---|---|---|');
    for (const [name, c] of Object.entries(l.contenders)) md.push(`| ${name} | ${fmt(c.p50)} | ${name === 'direct read' ? '–' : (c.p50.median - direct.p50.median).toFixed(0)} | ${fmt(c.p99)} | ${c.errors} |`);
    const added = (name: string) => ((l.contenders[name]!.p50.median - direct.p50.median) / 1000).toFixed(3);
    md.push('', `added p50 over the direct read: facade ${added('fhirgate facade (policy + audit)')} ms, @fastify/reply-from ${added('@fastify/reply-from')} ms (target for the facade < 0.3 ms)`, '');
    cases.push(caseOf('1 connection p50', 'µs', 'lower', 'direct read', Object.fromEntries(Object.entries(l.contenders).map(([n, c]) => [n, c.p50]))));
    return { title: 'FHIR facade read (policy + audit) vs @fastify/reply-from vs a direct read', markdown: md.join('\n'), cases };
  },
  'host-features': async () => {
    const figures = await benchHost(FEATURE_SERVERS);
    return hostOutcome('Host with the same features on: fhirgate vs Fastify 5 (request id, security header, access log at info to a file, request counter)', figures, 'Fastify 5, same features', 'fhirgate host', 1.15);
  },
  'e2e-transform': async () => {
    const figures = await benchHost(E2E_SERVERS, [16, 256], 'fixed-fhir-socket.ts');
    return hostOutcome('End to end: transform reading a fixed-response upstream and adding an extension, fhirgate vs Fastify 5 + undici Pool (features on)', figures, 'Fastify 5 + undici Pool', 'fhirgate host + gateway', 1.0);
  },
  notereader: async () => {
    const nr = await benchNoteReader();
    return {
      title: 'NoteReader: 1 MB CDA round trip vs bare saxes parse',
      markdown: `| what | per second |\n|---|---|\n| ProcessDocument round trip (${(nr.envelopeBytes / 1e6).toFixed(2)} MB envelope) | ${fmt(nr.roundTripPerSecond, 1)} |\n| bare saxes parse of the same bytes | ${fmt(nr.saxesPerSecond, 1)} |\n\nround trip / bare parse: ${ratio(nr.roundTripPerSecond.median, nr.saxesPerSecond.median)} (target ≥ 0.7×)`,
      cases: [caseOf('1 MB CDA', 'documents/s', 'higher', 'bare saxes parse', { 'ProcessDocument round trip': nr.roundTripPerSecond, 'bare saxes parse': nr.saxesPerSecond })],
    };
  },
  'notereader-worst': async () => {
    const figures = await benchNoteReaderWorst();
    const rows = figures.map((f) => `| ${f.name} | ${f.mib.toFixed(2)} | ${fmt(f.parseMsPerMiB, 0)} | ${fmt(f.longestBlockMs, 0)} | ${f.status}${f.fault === '' ? '' : ` ${f.fault.replace(/\|/g, '\\|').slice(0, 70)}`} |`);
    return {
      title: 'NoteReader: the worst bodies beside a plain CDA (envelope reader CPU per MiB, longest event-loop block of the host answering it)',
      markdown: `| input | MiB | parse CPU ms/MiB | longest event-loop block ms | answer |\n|---|---|---|---|---|\n${rows.join('\n')}\n\nParse CPU is the fastest run's \`process.cpuUsage\` of \`readEnvelope\` over 64 KiB chunks; the block is \`monitorEventLoopDelay\`'s maximum while the host (in this process) read and answered the body over a socket.`,
      cases: [
        caseOf('parse CPU per MiB', 'ms/MiB', 'lower', figures[0]!.name, Object.fromEntries(figures.map((f) => [f.name, f.parseMsPerMiB]))),
        caseOf('longest event-loop block', 'ms', 'lower', figures[0]!.name, Object.fromEntries(figures.map((f) => [f.name, f.longestBlockMs]))),
      ],
    };
  },
  'cold-start': async () => {
    const all = benchColdStart();
    const named = Object.fromEntries(Object.entries(all).map(([entry, s]) => [`fhirgate${entry === '.' ? '' : entry.slice(1)}`, s]));
    return {
      title: 'Cold start (import of each built entry point, fresh process)',
      markdown: `| entry | ms |\n|---|---|\n${Object.entries(named).map(([n, s]) => `| \`${n}\` | ${fmt(s, 1)} |`).join('\n')}`,
      cases: [caseOf('import', 'ms', 'lower', 'fhirgate/errors', named)],
    };
  },
  memory: async () => {
    const m = await benchMemory();
    const row = (what: string, l: typeof m.gateway) =>
      `| ${l.requests.toLocaleString('en-US')} ${what} | ${l.startMB.toFixed(1)} | ${l.endMB.toFixed(1)} | ${(l.endMB - l.startMB).toFixed(1)} | ${l.heapStartMB.toFixed(1)} | ${l.heapEndMB.toFixed(1)} |`;
    return {
      title: 'Memory after a forced GC (target: RSS growth < 10 MB)',
      markdown: `| what | RSS start MB | RSS end MB | growth MB | heap start MB | heap end MB |\n|---|---|---|---|---|---|\n${row('gateway reads', m.gateway)}\n${row('host requests', m.host)}`,
      cases: (['gateway', 'host'] as const).map((k) => caseOf(`${k} RSS after ${m[k].requests} requests`, 'MB', 'lower', 'start', { start: one(m[k].startMB), end: one(m[k].endMB) })),
    };
  },
  soak: async () => {
    const { low, high, ratios } = await benchSoak();
    const rps = (runs: typeof low) => summarize(runs.map((f) => f.rps));
    const peak = (runs: typeof low) => summarize(runs.map((f) => f.rssPeakMB));
    const errors = (runs: typeof low) => runs.reduce((e, f) => e + f.errors, 0);
    const [l, h] = [low[0]!, high[0]!];
    const md = [
      `throughput at ${h.connections} connections / at ${l.connections}, round by round: **${fmt(ratios, 2)}×** (median (min–max) of ${ratios.runs.length} rounds: ${ratios.runs.map((r) => `${r.toFixed(2)}×`).join(', ')}; target ≥ 0.9×); ` +
        `counted over each whole run instead, warm-up and ramp included: ${fmt(summarize(high.map((f, i) => f.wholeRunRps / low[i]!.wholeRunRps)), 2)}×`,
      '',
      `| connections | req/s in the window | host RSS peak MB | errors, all runs |`,
      '|---|---|---|---|',
      `| ${l.connections} | ${fmt(rps(low))} | ${fmt(peak(low), 1)} | ${errors(low)} |`,
      `| ${h.connections} | ${fmt(rps(high))} | ${fmt(peak(high), 1)} (target < 256) | ${errors(high)} |`,
      '',
      `clean (no error, no host warning, the host answered after the load and exited with 0): ${[...low, ...high].every(soakClean)}`,
      '\n### Every run, in the order they ran\n',
      soakRunsTable([...low, ...high]),
    ];
    return {
      title: 'Soak: the demo mix at 64 and 1,000 connections',
      method: `${ratios.runs.length} rounds of ${l.connections} and ${h.connections} connections back to back, the first of each round alternating; each run a fresh demo, ${l.warmup} s of warm-up then ${l.seconds} s measured; median (min–max)`,
      markdown: md.join('\n'),
      cases: [
        caseOf('demo mix throughput', 'req/s', 'higher', `${l.connections} connections`, { [`${l.connections} connections`]: rps(low), [`${h.connections} connections`]: rps(high) }),
        caseOf('demo host RSS peak', 'MB', 'lower', `${l.connections} connections`, { [`${l.connections} connections`]: peak(low), [`${h.connections} connections`]: peak(high) }),
        caseOf('demo mix throughput, round by round', 'ratio', 'higher', 'target', { target: one(0.9), [`${h.connections} / ${l.connections} connections`]: ratios }),
      ],
    };
  },
};

const asked = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = asked.filter((name) => !(name in WORKLOADS));
if (unknown.length > 0) {
  console.error(`unknown workload(s): ${unknown.join(', ')}; known: ${Object.keys(WORKLOADS).join(', ')}`);
  process.exit(2);
}
const names = asked.length === 0 ? Object.keys(WORKLOADS) : asked;
const json: Record<string, WorkloadJson> = {};
const resultsMd = new URL('./RESULTS.md', import.meta.url);
for (const name of names) {
  const date = new Date().toISOString();
  const outcome = await WORKLOADS[name]!();
  const section = `## ${outcome.title} (\`${name}\`)\n\n_run ${date}; ${machine()}; node ${process.version}; ${outcome.method ?? `${RUNS} runs per figure, contenders alternated; median (min–max)`}_\n\n${outcome.markdown}`;
  console.log(`\n${section}\n`);
  writeSection(resultsMd, name, section);
  json[name] = { date, cases: outcome.cases };
  writeResultsJson(new URL('./results.json', import.meta.url), RUNS, json);
}
console.log(`\nwritten to bench/RESULTS.md (sections: ${names.join(', ')}) and bench/results.json`);
