/**
 * Soak test (not run in CI): many concurrent keep-alive connections against the demo host (`npm start`,
 * in its own process) for a while, each connection cycling through the demo's own sample requests:
 * transforms from both sources, aggregates (one with a missing source), a CDS Hooks call and a SOAP
 * NoteReader call. Reports errors (expected: none), requests per second, p50/p99 latency, and the
 * host's RSS before and after the load.
 *
 * Run: `node --import tsx bench/soak.ts [--connections=1000] [--seconds=60]`
 * (needs `npm --prefix bench ci` once, for autocannon).
 */
import autocannon from 'autocannon';
import { SUMMARY_EXTENSION_URL } from '../examples/demo/handlers.js';
import { sampleRequests, type SampleKind, type SampleRequest } from '../examples/demo/requests.js';
import { startDemoPeer } from './lib/demo-peer.js';
import { pinSelf } from './lib/processes.js';

const DEFAULTS = { connections: 1000, seconds: 60 };

function option(name: keyof typeof DEFAULTS): number {
  const given = process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const value = Number(given ?? DEFAULTS[name]);
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`--${name} must be a positive integer, not ${given}`);
  return value;
}

/** What a good answer of each kind contains, beyond status 200. */
const EXPECTED_BODY: Readonly<Record<SampleKind, string>> = {
  transform: SUMMARY_EXTENSION_URL,
  aggregate: '"type":"searchset"',
  cds: '"cards":[{',
  soap: 'ProcessDocumentResponse',
};

interface KindTally {
  ok: number;
  bad: number;
  statuses: Map<number, number>;
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function main(): Promise<void> {
  const connections = option('connections');
  const seconds = option('seconds');
  pinSelf('client');
  const demo = await startDemoPeer();
  const tallies = new Map<SampleKind, KindTally>();
  const tally = (kind: SampleKind): KindTally => {
    let t = tallies.get(kind);
    if (t === undefined) tallies.set(kind, (t = { ok: 0, bad: 0, statuses: new Map() }));
    return t;
  };
  const requests = sampleRequests().map((r: SampleRequest) => ({
    method: r.method,
    path: r.path,
    headers: { ...r.headers },
    ...(r.body === undefined ? {} : { body: r.body }),
    onResponse: (status: number, body: string) => {
      const t = tally(r.kind);
      t.statuses.set(status, (t.statuses.get(status) ?? 0) + 1);
      if (status === 200 && body.includes(EXPECTED_BODY[r.kind])) t.ok += 1;
      else t.bad += 1;
    },
  }));
  const rssStart = demo.rssBytes();
  let rssPeak = rssStart;
  const sampler = setInterval(() => void (rssPeak = Math.max(rssPeak, demo.rssBytes())), 1000);
  console.log(`soak: ${connections} connections for ${seconds} s against ${demo.origin} (demo pid ${demo.pid}), RSS ${mb(rssStart)}`);
  const result = await autocannon({ url: demo.origin, connections, duration: seconds, timeout: 30, requests });
  clearInterval(sampler);
  const rssEnd = demo.rssBytes();
  // Does the host recover? One transform once the load has stopped (requests still queued in the host
  // finish first).
  const after = performance.now();
  const probe = await fetch(`${demo.origin}${sampleRequests()[0]?.path}`, { signal: AbortSignal.timeout(120_000) })
    .then(async (res) => `${res.status} after ${Math.round(performance.now() - after)} ms${(await res.text()).includes(SUMMARY_EXTENSION_URL) ? '' : ' (wrong body)'}`)
    .catch((err: Error) => `failed: ${err.message}`);
  const code = await demo.stop();

  const hostErrors = demo.errorLines();
  const bad = [...tallies.values()].reduce((n, t) => n + t.bad, 0);
  const errors = result.errors + result.timeouts + result.non2xx + bad;
  console.log(`
| figure | value |
|---|---|
| date | ${new Date().toISOString()} |
| connections, duration | ${connections}, ${seconds} s |
| requests answered / sent | ${result.requests.total.toLocaleString('en-US')} / ${result.requests.sent.toLocaleString('en-US')} |
| requests per second (mean) | ${Math.round(result.requests.average).toLocaleString('en-US')} |
| latency p50 / p99 | ${result.latency.p50} ms / ${result.latency.p99} ms |
| errors (connection errors + time-outs + non-2xx + wrong bodies) | ${errors} (${result.errors} + ${result.timeouts} + ${result.non2xx} + ${bad}) |
| a transform right after the load | ${probe} |
| host RSS start / peak / end | ${mb(rssStart)} / ${mb(rssPeak)} / ${mb(rssEnd)} |
| audit lines printed by the host | ${demo.auditLines().toLocaleString('en-US')} |
| host warning/error log lines | ${hostErrors.count.toLocaleString('en-US')} |
| host exit code after SIGTERM | ${code} |

| kind | good answers | bad answers | statuses |
|---|---|---|---|
${[...tallies].map(([kind, t]) => `| ${kind} | ${t.ok.toLocaleString('en-US')} | ${t.bad} | ${[...t.statuses].map(([s, n]) => `${s}×${n}`).join(', ')} |`).join('\n')}
${hostErrors.first.length === 0 ? '' : `\nfirst host log lines on stderr:\n${hostErrors.first.join('\n')}`}`);
  process.exitCode = errors === 0 && hostErrors.count === 0 && probe.startsWith('200 ') && !probe.includes('wrong') && code === 0 ? 0 : 1;
}

await main();
