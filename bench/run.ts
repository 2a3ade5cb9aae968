/**
 * `npm run bench [-- name ...]`: the workloads side by side (all of them, or only those named:
 * gateway-read, sync-latency, token-burst, host, facade, host-features, e2e-transform, notereader,
 * notereader-worst, cold-start, memory, soak, paired), a table of ratios on the terminal, each workload's figures
 * (median of the runs, with min and max) written to its own section of bench/RESULTS.md, and every
 * contender's median/min/max and ratio to its baseline merged into bench/results.json. `BENCH_RUNS`
 * (default 5) and `BENCH_SECONDS` change the run count and length.
 */
import os from 'node:os';
import { benchColdStart } from './cold-start.js';
import { ANCHOR, benchFacade, DIRECT, FHIRGATE, FHIRGATE_TRACED, NODE_FANOUT, PLAIN, UNDICI_FANOUT, type FacadeRow } from './facade.js';
import { benchEverything, EVERYTHING_CONTENDERS, EVERYTHING_PAIRS } from './everything.js';
import { benchGatewayRead } from './gateway-read.js';
import { benchHost, E2E_SERVERS, FEATURE_SERVERS, TRACED_HOST, type HostFigures } from './host.js';
import { benchMemory } from './memory.js';
import { benchNodes } from './lib/nodes.js';
import { benchNoteReader } from './notereader.js';
import { benchPaired, overFloors, verdict, interval, TARGET } from './paired.js';
import { benchNoteReaderWorst } from './notereader-worst.js';
import { caseOf, machine, writeResultsJson, writeSection, type CaseJson, type WorkloadJson } from './lib/report.js';
import { fmt, RUNS, summarize, type Summary } from './lib/stats.js';
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

/** The workloads whose servers run on each Node of `benchNodes()`. */
const NODE_WORKLOADS = new Set(['host', 'host-features', 'e2e-transform', 'facade', 'paired']);

/** The 1-minute load average now, and whether it says the machine is busy (over three quarters of its cores). */
function loadAtStart(): { text: string; busy: boolean } {
  const [one, five] = os.loadavg() as [number, number];
  return { text: `${one.toFixed(2)} (5 min ${five.toFixed(2)})`, busy: one > 0.75 * os.availableParallelism() };
}

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

/** A host-style table per connection count: every contender against `baseline` and `other`, with the target of `other` / `baseline` when given. */
function hostOutcome(title: string, figures: HostFigures[], baseline: string, other: string, target?: number): Outcome {
  const md: string[] = [];
  const cases: CaseJson[] = [];
  for (const f of figures) {
    const base = f.contenders[baseline]!.rps.median;
    const second = f.contenders[other]!.rps.median;
    md.push(`### ${f.connections} connections, servers on Node ${f.node}\n`, `| server | Node | req/s | vs ${baseline} | vs ${other} | p99 ms | server CPU µs/request | server core busy | errors |`, '|---|---|---|---|---|---|---|---|---|');
    for (const [name, c] of Object.entries(f.contenders)) md.push(`| ${name} | ${f.node} | ${fmt(c.rps)} | ${ratio(c.rps.median, base)} | ${ratio(c.rps.median, second)} | ${fmt(c.p99)} | ${fmt(c.cpu, 1)} | ${fmt(c.busy, 2)} | ${c.errors} |`);
    if (target !== undefined) md.push('', `${other} / ${baseline} on Node ${f.node}: ${ratio(second, base)} (target ≥ ${target.toFixed(2)}×); requests per server CPU-second: ${ratio(f.contenders[baseline]!.cpu.median, f.contenders[other]!.cpu.median)}`);
    md.push('');
    cases.push(caseOf(`${f.connections} connections, Node ${f.node}`, 'req/s', 'higher', baseline, Object.fromEntries(Object.entries(f.contenders).map(([n, c]) => [n, c.rps]))));
  }
  return { title, markdown: md.join('\n'), cases };
}
const one = (x: number) => summarize([x]);
/** CPU per request with tracing on over off, against issue 37's target. */
const tracingCost = (on: Summary, off: Summary) => `${on.median.toFixed(1)} µs against ${off.median.toFixed(1)} µs: ${ratio(on.median, off.median)} (target ≤ 1.05×)`;

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
  host: async () => {
    const figures = await benchHost();
    const outcome = hostOutcome('Host: transform endpoint (autocannon in its own process)', figures, 'bare node:http', 'Fastify 5');
    const traced = figures.map((f) => `- ${f.connections} connections, Node ${f.node}: ${tracingCost(f.contenders[TRACED_HOST]!.cpu, f.contenders['fhirgate host']!.cpu)}`);
    return { ...outcome, markdown: `${outcome.markdown}
CPU per request with tracing on (the OpenTelemetry SDK, a no-op exporter) over tracing off:

${traced.join('\n')}
` };
  },
  facade: async () => {
    const { cases: measured, parity } = await benchFacade();
    const md: string[] = [];
    const cases: CaseJson[] = [];
    const label = (r: FacadeRow) => `${r.contender} (Node ${r.node})`;
    md.push(
      'AuditEvent JSON per access, checked equal before measuring (the run stops otherwise): ' +
        parity.map((p) => `Node ${p.node}: read ${p.auditBytes.read.fhirgate} bytes (anchor ${p.auditBytes.read.anchor}), federated search ${p.auditBytes.federated.fhirgate} bytes each, one per patient per source (anchor ${p.auditBytes.federated.anchor})`).join('; '),
      '',
    );
    for (const c of measured) {
      const title = c.kind === 'read' ? 'Read of one Patient' : 'Federated search over two sources (5 Patients each)';
      const same = (contender: string, node: string) => c.rows.find((r) => r.contender === contender && r.node === node);
      if (c.connections > 1) {
        md.push(`### ${title}, ${c.connections} connections\n`, '| server | Node | req/s | vs feature-equal, same Node | vs plain reply-from, same Node | p50 ms | p99 ms | server CPU µs/request | server core busy | errors |', '|---|---|---|---|---|---|---|---|---|---|');
        for (const r of c.rows) {
          const vs = (other: string) => {
            const o = same(other, r.node);
            return o === undefined || r.contender === DIRECT ? '–' : ratio(r.rps!.median, o.rps!.median);
          };
          md.push(`| ${r.contender} | ${r.node} | ${fmt(r.rps!)} | ${vs(ANCHOR)} | ${vs(PLAIN)} | ${fmt(r.p50, 2)} | ${fmt(r.p99, 2)} | ${r.contender === DIRECT ? '–' : fmt(r.cpu!, 1)} | ${r.contender === DIRECT ? '–' : fmt(r.busy!, 2)} | ${r.errors} |`);
        }
        md.push('');
        for (const f of c.rows.filter((r) => r.contender === FHIRGATE)) {
          const a = same(ANCHOR, f.node)!;
          md.push(`- Node ${f.node}: fhirgate / feature-equal: throughput ${ratio(f.rps!.median, a.rps!.median)}, requests per server CPU-second ${ratio(a.cpu!.median, f.cpu!.median)} (target ≥ 1.10× both)`);
        }
        for (const f of c.rows.filter((r) => r.contender === FHIRGATE)) {
          const [a, nodeFloor, undiciFloor] = [same(ANCHOR, f.node), same(NODE_FANOUT, f.node), same(UNDICI_FANOUT, f.node)];
          if (a === undefined || nodeFloor === undefined || undiciFloor === undefined) continue;
          const [ours, theirs] = [f.cpu!.median - nodeFloor.cpu!.median, a.cpu!.median - undiciFloor.cpu!.median];
          md.push(`- Node ${f.node}, CPU µs per request over the fan-out floor of each stack: fhirgate's features ${ours.toFixed(0)} (over node:http), the anchor's ${theirs.toFixed(0)} (over undici), anchor ÷ fhirgate ${ratio(theirs, ours)}; the undici floor ÷ the node:http floor ${ratio(undiciFloor.cpu!.median, nodeFloor.cpu!.median)}`);
        }
        for (const f of c.rows.filter((r) => r.contender === FHIRGATE_TRACED)) md.push(`- Node ${f.node}, tracing on over off: ${tracingCost(f.cpu!, same(FHIRGATE, f.node)!.cpu!)}`);
        md.push('');
        cases.push(caseOf(`${c.kind}, ${c.connections} connections`, 'req/s', 'higher', label(c.rows.find((r) => r.contender === ANCHOR)!), Object.fromEntries(c.rows.map((r) => [label(r), r.rps!]))));
        cases.push(caseOf(`${c.kind}, ${c.connections} connections, server CPU per request`, 'µs', 'lower', label(c.rows.find((r) => r.contender === ANCHOR)!), Object.fromEntries(c.rows.filter((r) => r.contender !== DIRECT).map((r) => [label(r), r.cpu!]))));
      } else {
        const direct = c.rows.find((r) => r.contender === DIRECT)!;
        md.push(`### ${title}, 1 connection, one request at a time (µs)\n`, '| server | Node | p50 µs | added p50 over the direct request, µs | p99 µs | errors |', '|---|---|---|---|---|---|');
        for (const r of c.rows) md.push(`| ${r.contender} | ${r.node} | ${fmt(r.p50)} | ${r === direct ? '–' : (r.p50.median - direct.p50.median).toFixed(0)} | ${fmt(r.p99)} | ${r.errors} |`);
        md.push('');
        if (c.kind === 'read') for (const f of c.rows.filter((r) => r.contender === FHIRGATE)) md.push(`- Node ${f.node}: the facade adds ${((f.p50.median - direct.p50.median) / 1000).toFixed(3)} ms to the direct read's p50 (target < 0.3 ms)`);
        md.push('');
        cases.push(caseOf(`${c.kind}, 1 connection p50`, 'µs', 'lower', label(direct), Object.fromEntries(c.rows.map((r) => [label(r), r.p50]))));
      }
    }
    const { rows: everything, parity: everythingParity } = await benchEverything();
    const sameNode = (contender: string, node: string) => everything.find((r) => r.contender === contender && r.node === node);
    const anchorOf = (contender: string) => EVERYTHING_PAIRS.find((p) => p.fhirgate === contender)?.anchor;
    md.push(
      '### Patient/$everything over two sources (50 resources each, each source answering $everything itself), 16 connections and 1\n',
      `The feature-equal build answers alike, checked before measuring: ${everythingParity.map((p) => `Node ${p.node}: ${p.audits['300']!.count} AuditEvents of ${p.audits['300']!.bytes} bytes per request cached, ${p.audits['0']!.count} of ${p.audits['0']!.bytes} not`).join('; ')}.\n`,
      '| server | Node | req/s | vs feature-equal, same Node and resolution | vs plain reply-from, same Node | server CPU µs/request | p50 ms (16 connections) | p50 µs (1 connection) | errors |',
      '|---|---|---|---|---|---|---|---|---|',
      ...everything.map((r) => {
        const anchor = anchorOf(r.contender);
        const a = anchor === undefined ? undefined : sameNode(anchor, r.node);
        const plain = r.contender === EVERYTHING_CONTENDERS.direct ? undefined : sameNode(EVERYTHING_CONTENDERS.plain, r.node);
        return `| ${r.contender} | ${r.node} | ${fmt(r.rps)} | ${a === undefined ? '–' : ratio(r.rps.median, a.rps.median)} | ${plain === undefined || plain === r ? '–' : ratio(r.rps.median, plain.rps.median)} | ${r.contender === EVERYTHING_CONTENDERS.direct ? '–' : fmt(r.cpu, 0)} | ${fmt(r.p50, 2)} | ${fmt(r.latencyP50)} | ${r.errors} |`;
      }),
      '',
      ...everything.flatMap((r) => {
        const anchor = anchorOf(r.contender);
        const a = anchor === undefined ? undefined : sameNode(anchor, r.node);
        return a === undefined ? [] : [`- Node ${r.node}, ${r.contender.replace('fhirgate facade, ', '')}: fhirgate / feature-equal: throughput ${ratio(r.rps.median, a.rps.median)}, requests per server CPU-second ${ratio(a.cpu.median, r.cpu.median)}`];
      }),
      '',
    );
    for (const { fhirgate, anchor } of EVERYTHING_PAIRS) {
      const rows = everything.filter((r) => r.contender === fhirgate || r.contender === anchor);
      cases.push(caseOf(`$everything (${fhirgate.replace('fhirgate facade, ', '')}), 16 connections`, 'req/s', 'higher', `${anchor} (Node ${rows[0]!.node})`, Object.fromEntries(rows.map((r) => [`${r.contender} (Node ${r.node})`, r.rps]))));
      cases.push(caseOf(`$everything (${fhirgate.replace('fhirgate facade, ', '')}), 16 connections, server CPU per request`, 'µs', 'lower', `${anchor} (Node ${rows[0]!.node})`, Object.fromEntries(rows.map((r) => [`${r.contender} (Node ${r.node})`, r.cpu]))));
    }
    return { title: 'FHIR facade: read and federated search vs the same features on Fastify 5 vs plain reply-from vs the upstream itself; $everything', markdown: md.join('\n'), cases };
  },
  paired: async () => {
    const measured = await benchPaired();
    const starts = measured[0]?.starts.length ?? 0;
    const rounds = measured[0]?.starts[0]?.length ?? 0;
    const md = [
      `fhirgate ÷ the feature-equal build: per start of the servers, the geometric mean of its rounds' ratios; over the starts, their geometric mean (95% interval, t over the starts). A round counts when both kept their cores ≥ ${((measured[0]?.minBusy ?? 0) * 100).toFixed(0)}% busy (for the floors' table, when the floors did too). Verdict against ${TARGET.toFixed(2)}×: met when both intervals lie above it, missed when either lies below, undecided otherwise. The spread of the log of the CPU ratio is given between starts and, pooled, between rounds.`,
      '',
      '| row | Node | starts (rounds) counted | fhirgate CPU µs/request | feature-equal CPU µs/request | requests per CPU-second | requests per second | sd of log between starts (rounds) | verdict | errors |',
      '|---|---|---|---|---|---|---|---|---|---|',
      ...measured.map((r) => `| ${r.row.title} | ${r.node} | ${r.cpu?.values.length ?? 0} of ${r.starts.length} (${r.counted.length} of ${r.rounds.length}) | ${r.cpuOf[r.row.fhirgate.name] === undefined ? '–' : fmt(r.cpuOf[r.row.fhirgate.name]!, 0)} | ${r.cpuOf[r.row.anchor.name] === undefined ? '–' : fmt(r.cpuOf[r.row.anchor.name]!, 0)} | ${interval(r.cpu)} | ${interval(r.rps)} | ${r.cpu?.sdLog.toFixed(3) ?? '–'} (${r.roundsCpu?.sdLog.toFixed(3) ?? '–'}) | ${verdict(r)} | ${r.errors} |`),
      '',
      'Each build over its own floor, paired within rounds (CPU µs per request; median (min–max) over the rounds in which all four kept their cores busy). The read\'s floors: `node:http` + one `http.Agent` forwarding (fhirgate\'s) and plain reply-from (the anchor\'s); the federated search\'s: the two fan-out floors.',
      '',
      '| row | Node | rounds | fhirgate − its floor | anchor − its floor | features, anchor ÷ fhirgate | anchor\'s floor ÷ fhirgate\'s | fhirgate on the anchor\'s floor |',
      '|---|---|---|---|---|---|---|---|',
      ...measured.flatMap((r) => {
        const o = overFloors(r);
        return o === undefined ? [] : [`| ${r.row.title} | ${r.node} | ${r.floorRounds.length} | ${fmt(o.fhirgateFeatures, 0)} | ${fmt(o.anchorFeatures, 0)} | ${fmt(o.featuresRatio, 2)} | ${fmt(o.floorRatio, 2)} | ${fmt(o.onAnchorFloor, 2)} |`];
      }),
    ];
    const cases = measured.flatMap((r) => (r.cpu === undefined || r.rps === undefined ? [] : [caseOf(`${r.row.title}, Node ${r.node}: fhirgate ÷ feature-equal per start`, 'ratio', 'higher', 'target', { target: one(TARGET), 'requests per CPU-second': summarize(r.cpu.values), 'requests per second': summarize(r.rps.values) })]));
    return { title: 'FHIR facade: each target row in paired rounds (fhirgate against the feature-equal build, seconds apart)', markdown: md.join('\n'), cases, method: `${starts} starts of the servers × ${rounds} paired rounds per row and Node, the starts of every row and Node interleaved; windows of ${process.env.BENCH_SECONDS ?? 3} s, every server of a row running at once and measured back to back, the order reversed every other round and every other start` };
  },
  'host-features': async () => {
    const figures = await benchHost(FEATURE_SERVERS);
    const outcome = hostOutcome('Host with the same features on: fhirgate vs Fastify 5 (request id, security header, access log at info to a file, request counter, W3C trace context)', figures, 'Fastify 5, same features', 'fhirgate host', 1.15);
    const untraced = 'Fastify 5, features without trace context';
    const before = figures.map((f) => `- ${f.connections} connections, Node ${f.node}: fhirgate host / ${untraced}: ${ratio(f.contenders['fhirgate host']!.rps.median, f.contenders[untraced]!.rps.median)} req/s, ${ratio(f.contenders[untraced]!.cpu.median, f.contenders['fhirgate host']!.cpu.median)} requests per CPU-second`);
    return { ...outcome, markdown: `${outcome.markdown}
Against the anchor without the trace context (issue 38 item 2):
${before.join('\n')}
` };
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
const serverNodes = benchNodes().map((n) => n.version);
for (const name of names) {
  const date = new Date().toISOString();
  const load = loadAtStart();
  const outcome = await WORKLOADS[name]!();
  const where = NODE_WORKLOADS.has(name) ? `runner and upstreams on node ${process.version}, servers on node ${serverNodes.join(' and ')}` : `node ${process.version}`;
  const compiled = process.env.BENCH_TSX === '1' ? 'peers run from their TypeScript through tsx' : 'peers compiled by tsc (bench/.build/)';
  const loaded = load.busy ? `\n\n**Loaded machine (load average ${load.text} at the start on ${os.availableParallelism()} cores): not a pinned quiet-machine result.**` : '';
  const section = `## ${outcome.title} (\`${name}\`)\n\n_run ${date}; ${machine()}; load average at the start ${load.text}; ${where}; ${compiled}; ${outcome.method ?? `${RUNS} runs per figure, contenders alternated; median (min–max)`}_${loaded}\n\n${outcome.markdown}`;
  console.log(`\n${section}\n`);
  writeSection(resultsMd, name, section);
  json[name] = { date, loadAtStart: os.loadavg()[0]!, ...(NODE_WORKLOADS.has(name) ? { serverNodes } : {}), cases: outcome.cases };
  writeResultsJson(new URL('./results.json', import.meta.url), RUNS, json);
}
console.log(`\nwritten to bench/RESULTS.md (sections: ${names.join(', ')}) and bench/results.json`);
