/**
 * `node --import tsx bench/audit-cost.ts [read|federated] [rounds] [event|sink|both]`: the CPU the facade's
 * audit costs per request, in process (no sockets): the accesses one request records (a read: one; the
 * federated search over two sources of 5 Patients: ten) through `AuditTrail` to a `fhir.audit` handler as
 * the bench server's (`event`, the default), to an audit sink's queue (`sink`: the sink's `add`, not its
 * POST) or to both, beside the feature-equal anchor's `AuditQueue.push` for the same accesses. Prints ns
 * per request of each, rounds alternating, the median and the range.
 */
import { LocalEventDispatcher } from '../src/index.js';
import type { AccessFacts, AccessResult } from '../src/facade/audit-event.js';
import type { AuditSink } from '../src/facade/audit-sink.js';
import { AuditTrail } from '../src/facade/audit-trail.js';
import type { Caller } from '../src/facade/caller.js';
import { AuditQueue, type Access } from './servers/anchor-audit.js';

const shape = process.argv[2] ?? 'federated';
const rounds = Number(process.argv[3] ?? 7);
const PER_ROUND = 5_000;
const BASE = 'http://127.0.0.1:32897/fhir';
const caller = { id: 'key:bench', name: 'bench', kind: 'api-key', sources: '*', scopes: [], operations: new Set(), patient: undefined, allowReaching: false } as unknown as Caller;

let n = 0;
const requestId = () => `56425645-2bc1-4654-a5d9-${String(++n).padStart(12, '0')}`;
const traceparent = () => `00-070bc3895b03120c2b4f7e914f23a4${String(n % 100).padStart(2, '0')}-2c252c041f6f9937-01`;

/** One request's accesses, as the facade records them. */
function fhirgateRequest(trail: AuditTrail): void {
  const id = requestId();
  const tp = traceparent();
  if (shape === 'read') {
    const access: AccessFacts = { interaction: { name: 'read', type: 'Patient', id: 'bench-1', conditional: false }, source: 'ehr', caller, address: '127.0.0.1', server: `${BASE}/ehr`, requestId: id, traceparent: tp, observer: 'fhirgate' };
    trail.record(access, { outcome: 0, outcomeDesc: undefined, what: 'Patient/bench-1/_history/1', patient: 'Patient/bench-1' } as AccessResult);
    return;
  }
  for (const source of ['ehr', 'lab']) {
    const access: AccessFacts = { interaction: { name: 'search-type', type: 'Patient', conditional: false }, source, caller, address: '127.0.0.1', server: `${BASE}/${source}`, requestId: id, traceparent: tp, observer: 'fhirgate' };
    for (let p = 1; p <= 5; p++) trail.record(access, { outcome: 0, outcomeDesc: undefined, query: 'GET /all/Patient?family=Benchmark', patient: `Patient/bench-${p}` } as AccessResult);
  }
}

function anchorRequest(queue: AuditQueue): void {
  const id = requestId();
  const tp = traceparent();
  if (shape === 'read') {
    queue.push({ interaction: 'read', source: 'ehr', caller: 'bench', address: '127.0.0.1', server: `${BASE}/ehr`, requestId: id, traceparent: tp, outcome: 0, what: 'Patient/bench-1/_history/1', patient: 'Patient/bench-1' });
    return;
  }
  for (const source of ['ehr', 'lab']) {
    for (let p = 1; p <= 5; p++) {
      const a: Access = { interaction: 'search-type', source, caller: 'bench', address: '127.0.0.1', server: `${BASE}/${source}`, requestId: id, traceparent: tp, outcome: 0, query: 'GET /all/Patient?family=Benchmark', patient: `Patient/bench-${p}` };
      queue.push(a);
    }
  }
}

const dispatcher = new LocalEventDispatcher();
let bytes = 0;
dispatcher.register('fhir.audit', ([, payload]) => {
  bytes += Buffer.byteLength((payload as { audit_event: string }).audit_event); // as the bench server's handler
});
const delivery = process.argv[4] ?? 'event';
let sunk = 0;
const sink = delivery === 'event' ? undefined : ({ add: () => void sunk++ } as unknown as AuditSink);
const trail = new AuditTrail(sink);
trail.use(delivery === 'sink' ? null : dispatcher);
const queue = new AuditQueue(1_000_000);
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** ns of CPU per request over one round; 16 requests per turn of the loop, as 16 connections would. */
async function round(one: () => void): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < PER_ROUND; i += 16) {
    for (let j = 0; j < 16; j++) one();
    await tick();
  }
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / PER_ROUND;
}

const results: Record<string, number[]> = { fhirgate: [], anchor: [] };
await round(() => fhirgateRequest(trail));
await round(() => anchorRequest(queue));
for (let r = 0; r < rounds; r++) {
  results.fhirgate!.push(await round(() => fhirgateRequest(trail)));
  results.anchor!.push(await round(() => anchorRequest(queue)));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
for (const [name, xs] of Object.entries(results)) console.log(`${shape} ${name === 'fhirgate' ? `fhirgate (${delivery})` : name}: median ${median(xs).toFixed(0)} ns/request, range ${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)} (${process.version})`);
console.log(`ratio anchor/fhirgate (median of pairs): ${median(results.anchor!.map((a, i) => a / results.fhirgate![i]!)).toFixed(2)}; ${bytes > 0 || sunk > 0 ? 'delivered' : 'NOTHING delivered'}`);
