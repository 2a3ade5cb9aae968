/**
 * What tracing adds to one request, alone (issue 37): the spans of a host request (one server span), a
 * facade read (server and client span) and a federated search over two sources (server span, two
 * `fhirgate.federated.source` spans, two client spans with a redacted query), each made three ways, in
 * one process, CPU time per request over 100,000 requests, the median of 6 rounds:
 * - `fhirgate + SDK`: through fhirgate's own span functions (src/lib/tracer.ts, src/http/client-span.ts)
 *   with the bench's SDK set-up (servers/bench-tracer.ts: `BasicTracerProvider`, `BatchSpanProcessor`
 *   to an exporter that drops);
 * - `SDK alone`: the same spans, names and attributes given straight to the SDK's tracer (the floor no
 *   caller of the SDK can go under);
 * - `untraced`: the ids fhirgate makes itself when there is no tracer.
 * Compare the first two against the server's CPU per request with tracing off (`npm run bench -- host`,
 * `-- facade`): the SDK's share is the floor of the "tracing on" rows.
 * Run: `node --import tsx bench/span-cost.ts` (any Node).
 */
import { ROOT_CONTEXT, trace, type Span } from '@opentelemetry/api';
import { endClientSpan, startClientSpan } from '../src/http/client-span.js';
import type { HTTPTarget } from '../src/http/request-options.js';
import { childSpan, startTrace, type TraceContext } from '../src/lib/trace-context.js';
import { SPAN_KIND, startSpan } from '../src/lib/tracer.js';
import { benchTracer } from './servers/bench-tracer.js';

process.env.BENCH_TRACING = '1';
const tracer = benchTracer()!;
const upstream = 'http://127.0.0.1:40000';
const target = (pathname: string, search: string) => ({ protocol: 'http:', hostname: '127.0.0.1', port: '40000', origin: upstream, pathname, search, username: '', password: '' }) as HTTPTarget;
const read = target('/fhir/R4/Patient/bench-1', '');
const sources = [['ehr', target('/fhir/R4/Patient', '?family=Benchmark')], ['lab', target('/lab/R4/Patient', '?family=Benchmark')]] as const;

/** fhirgate's server span as the host starts and ends it (pipeline.ts). */
function serverSpan(path: string): TraceContext {
  return startSpan(tracer, 'GET', SPAN_KIND.server, undefined, { 'http.request.method': 'GET', 'url.path': path, 'url.scheme': 'http' });
}
function endServer(span: Pick<Span, 'setAttribute' | 'updateName' | 'end'>, route: string): void {
  span.setAttribute('http.route', route);
  span.updateName(`GET ${route}`);
  span.setAttribute('http.response.status_code', 200);
  span.end();
}
function sdkServer(path: string): Span {
  const span = tracer.startSpan('GET', { kind: SPAN_KIND.server, attributes: { 'http.request.method': 'GET', 'url.path': path, 'url.scheme': 'http' } }, ROOT_CONTEXT);
  span.spanContext();
  return span;
}
function sdkClient(parent: Span, url: string): void {
  const span = tracer.startSpan('GET', { kind: SPAN_KIND.client, attributes: { 'http.request.method': 'GET', 'server.address': '127.0.0.1', 'server.port': 40000, 'url.full': url } }, trace.setSpan(ROOT_CONTEXT, parent));
  span.spanContext();
  span.setAttribute('http.response.status_code', 200);
  span.end();
}

type Kind = 'host' | 'read' | 'federated';
const ways: Record<string, Record<Kind, () => void>> = {
  'fhirgate + SDK': {
    host: () => endServer(serverSpan('/fhir/transform/Patient/p1').span!, '/fhir/transform/:type/:id'),
    read: () => {
      const server = serverSpan('/fhir/ehr/Patient/bench-1');
      endClientSpan(startClientSpan(tracer, server, 'GET', read, 0).span, 200, undefined);
      endServer(server.span!, '/fhir/:source/:a/:b');
    },
    federated: () => {
      const server = serverSpan('/fhir/all/Patient');
      for (const [source, t] of sources) {
        const each = startSpan(tracer, 'fhirgate.federated.source', SPAN_KIND.internal, server, { 'fhirgate.source': source });
        endClientSpan(startClientSpan(tracer, each, 'GET', t, 0).span, 200, undefined);
        each.span.end();
      }
      endServer(server.span!, '/fhir/:source/:a');
    },
  },
  'SDK alone': {
    host: () => endServer(sdkServer('/fhir/transform/Patient/p1'), '/fhir/transform/:type/:id'),
    read: () => {
      const server = sdkServer('/fhir/ehr/Patient/bench-1');
      sdkClient(server, `${upstream}/fhir/R4/Patient/bench-1`);
      endServer(server, '/fhir/:source/:a/:b');
    },
    federated: () => {
      const server = sdkServer('/fhir/all/Patient');
      for (const [source, t] of sources) {
        const each = tracer.startSpan('fhirgate.federated.source', { kind: SPAN_KIND.internal, attributes: { 'fhirgate.source': source } }, trace.setSpan(ROOT_CONTEXT, server));
        each.spanContext();
        sdkClient(each, `${upstream}${t.pathname}?family=REDACTED`);
        each.end();
      }
      endServer(server, '/fhir/:source/:a');
    },
  },
  untraced: {
    host: () => void startTrace(),
    read: () => void childSpan(startTrace()),
    federated: () => {
      const t = startTrace();
      childSpan(t);
      childSpan(t);
    },
  },
};

const REQUESTS = 100_000;
const ROUNDS = 6;
/** A turn of the event loop every 100 requests, so that the batch processor exports as in a server. */
const turn = () => new Promise((resolve) => setImmediate(resolve));
async function cpuPerRequest(work: () => void, requests: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 1; i <= requests; i++) {
    work();
    if (i % 100 === 0) await turn();
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / requests;
}
const figures = new Map<string, number[]>();
for (let round = 0; round <= ROUNDS; round++) {
  for (const kind of ['host', 'read', 'federated'] as const) {
    for (const [way, works] of Object.entries(ways)) {
      const us = await cpuPerRequest(works[kind], round === 0 ? 10_000 : REQUESTS);
      if (round > 0) figures.set(`${kind}: ${way}`, [...(figures.get(`${kind}: ${way}`) ?? []), us]);
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`Node ${process.version}, CPU µs per request (median of ${ROUNDS} rounds of ${REQUESTS.toLocaleString('en')}; the loop's own turn included in each)`);
for (const [name, xs] of figures) console.log(`${name.padEnd(28)} ${median(xs).toFixed(2).padStart(6)} µs`);
