import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AsyncFHIRGateway, FHIRGateway, aggregateSources, createEntry, updateEntry } from '../../src/gateway/index.js';
import { GATEWAY_OPTION_KEYS } from '../../src/gateway/core/options.js';
import { SYNC_GATEWAY_OPTION_KEYS } from '../../src/gateway/sync/options.js';
import { CALL_OPTION_KEYS } from '../../src/gateway/core/call-options.js';
import { PAGING_OPTION_KEYS } from '../../src/gateway/core/paging.js';
import { ROTATE_KEY_OPTION_KEYS, SOURCE_OPTION_KEYS } from '../../src/gateway/core/source-keys.js';
import { BULK_OPTION_KEYS } from '../../src/gateway/bulk/options.js';
import { AGGREGATE_OPTION_KEYS } from '../../src/gateway/aggregate-sources.js';
import { ENTRY_OPTION_KEYS } from '../../src/gateway/core/bundle-entries.js';
import { createJSONLogger, createLogger, createServiceAPI } from '../../src/host/index.js';
import { SERVICE_API_OPTION_KEYS } from '../../src/host/options.js';
import { CORS_OPTION_KEYS } from '../../src/host/cors.js';
import { APP_OPTION_KEYS } from '../../src/host/app.js';
import { ROUTE_OPTION_KEYS } from '../../src/host/custom-route.js';
import { LOGGER_OPTION_KEYS } from '../../src/host/logger.js';
import { OPERATION_EXAMPLE_KEYS } from '../../src/host/openapi-examples.js';
import { CDSHooksService } from '../../src/cds/index.js';
import { CDS_OPTION_KEYS } from '../../src/cds/types.js';
import { NoteReaderService, enrichCDA, readCDA } from '../../src/soap/index.js';
import { NOTEREADER_OPTION_KEYS, XML_LIMIT_KEYS } from '../../src/soap/options.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { SANDBOX_OPTION_KEYS } from '../../src/sandbox/options.js';
import { CONNECTION_STRING_OPTION_KEYS } from '../../src/sandbox/connection-string.js';
import { FAULT_OPTION_KEYS } from '../../src/sandbox/faults.js';
import { CloudEventsDispatcher, LocalEventDispatcher } from '../../src/events/index.js';
import { CLOUD_EVENTS_OPTION_KEYS } from '../../src/events/cloud-events-dispatcher.js';
import { LOCAL_OPTION_KEYS } from '../../src/events/local-dispatcher.js';
import { redisStore } from '../../src/redis/index.js';
import { REDIS_OPTION_KEYS } from '../../src/redis/redis-store.js';
import { natsDispatcher } from '../../src/nats/index.js';
import { NATS_OPTION_KEYS } from '../../src/nats/nats-dispatcher.js';

/** One option object: the path its messages name, its keys, and a call that hands it `options`. */
interface Covered {
  readonly what: string;
  readonly path: string;
  readonly keys: readonly string[];
  readonly pass: (options: Record<string, unknown>) => unknown;
}

/** A one-letter typo of `key`: its third letter (or its last) typed twice. */
function typo(key: string): string {
  const at = Math.min(2, key.length - 1);
  return key.slice(0, at + 1) + key.slice(at);
}

const PATIENT = { resourceType: 'Patient', id: 'p1' } as const;
const CDA = '<ClinicalDocument xmlns="urn:hl7-org:v3"><component><structuredBody/></component></ClinicalDocument>';
const nats = { publish: () => undefined, flush: async () => undefined };
const redis = { sendCommand: async () => null };

/** Every option object whose typos are checked; those needing a live object get it from `live`. */
function covered(live: { gw: AsyncFHIRGateway; sync: FHIRGateway; sandbox: Awaited<ReturnType<typeof startSandbox>>; app: ReturnType<typeof createServiceAPI> }): Covered[] {
  const { gw, sync, sandbox, app } = live;
  const never = (o: unknown): never => o as never;
  return [
    { what: 'new AsyncFHIRGateway', path: 'options', keys: GATEWAY_OPTION_KEYS, pass: (o) => new AsyncFHIRGateway(never(o)) },
    { what: 'new FHIRGateway', path: 'options', keys: SYNC_GATEWAY_OPTION_KEYS, pass: (o) => new FHIRGateway(never(o)) },
    { what: 'gw.read', path: 'options', keys: CALL_OPTION_KEYS.call, pass: (o) => gw.read('Patient', 'p1', 'none', never(o)) },
    { what: 'gw.search', path: 'options', keys: CALL_OPTION_KEYS.call, pass: (o) => gw.search('Patient', {}, 'none', never(o)) },
    { what: 'gw.modify', path: 'options', keys: CALL_OPTION_KEYS.call, pass: (o) => gw.modify('Patient', 'p1', 'none', (p) => p, never(o)) },
    { what: 'gw.create', path: 'options', keys: CALL_OPTION_KEYS.create, pass: (o) => gw.create(PATIENT, 'none', never(o)) },
    { what: 'sync gw.create', path: 'options', keys: CALL_OPTION_KEYS.syncCreate, pass: (o) => sync.create(PATIENT, 'none', never(o)) },
    { what: 'gw.pages', path: 'options', keys: PAGING_OPTION_KEYS.pages, pass: (o) => gw.pages('Patient', {}, 'none', never(o)) },
    { what: 'gw.searchAll', path: 'options', keys: PAGING_OPTION_KEYS.searchAll, pass: (o) => gw.searchAll('Patient', {}, 'none', never(o)) },
    { what: 'sync gw.searchAll', path: 'options', keys: PAGING_OPTION_KEYS.searchAll, pass: (o) => sync.searchAll('Patient', {}, 'none', never(o)) },
    { what: 'gw.addSource', path: 'addSource: options', keys: SOURCE_OPTION_KEYS, pass: (o) => gw.addSource('s', sandbox.connectionString(), never(o)) },
    { what: 'gw.rotateKey', path: 'rotateKey: options', keys: ROTATE_KEY_OPTION_KEYS, pass: (o) => gw.rotateKey('s', never(o)) },
    { what: 'gw.bulkExport', path: 'options', keys: BULK_OPTION_KEYS.bulkExport, pass: (o) => gw.bulkExport('s', never(o)) },
    { what: 'gw.bulkExportAll', path: 'options', keys: BULK_OPTION_KEYS.bulkExportAll, pass: (o) => gw.bulkExportAll(['s'], never(o)) },
    { what: 'sync gw.bulkExport', path: 'options', keys: BULK_OPTION_KEYS.bulkExport.filter((k) => k !== 'signal'), pass: (o) => sync.bulkExport('s', never(o)) },
    { what: 'sync gw.bulkExportAll', path: 'options', keys: BULK_OPTION_KEYS.bulkExportAll.filter((k) => k !== 'signal'), pass: (o) => sync.bulkExportAll(['s'], never(o)) },
    { what: 'aggregateSources', path: 'aggregateSources: options', keys: AGGREGATE_OPTION_KEYS, pass: (o) => aggregateSources(gw, never(o)) },
    { what: 'createEntry', path: 'options', keys: ENTRY_OPTION_KEYS.createEntry, pass: (o) => createEntry(PATIENT, never(o)) },
    { what: 'updateEntry', path: 'options', keys: ENTRY_OPTION_KEYS.updateEntry, pass: (o) => updateEntry(PATIENT, never(o)) },
    { what: 'createServiceAPI', path: 'options', keys: SERVICE_API_OPTION_KEYS, pass: (o) => createServiceAPI(never(o)) },
    { what: 'createServiceAPI cors', path: 'options.cors', keys: CORS_OPTION_KEYS, pass: (o) => createServiceAPI({ cors: never(o) }) },
    { what: 'openapiExamples', path: 'options.openapiExamples["GET /x"]', keys: OPERATION_EXAMPLE_KEYS, pass: (o) => createServiceAPI({ openapiExamples: { 'GET /x': never(o) } }) },
    { what: 'registerGateway', path: 'registerGateway: options', keys: APP_OPTION_KEYS.mount, pass: (o) => app.registerGateway(gw, never(o)) },
    { what: 'registerService', path: 'registerService: options', keys: APP_OPTION_KEYS.mount, pass: (o) => app.registerService(new CDSHooksService(), never(o)) },
    { what: 'app.createServer', path: 'options', keys: APP_OPTION_KEYS.createServer, pass: (o) => app.createServer(never(o)) },
    { what: 'app.close', path: 'options', keys: APP_OPTION_KEYS.close, pass: (o) => app.close(never(o)) },
    { what: 'a custom route', path: 'options', keys: ROUTE_OPTION_KEYS.route, pass: (o) => app.get('/typo', never(o), () => 'x') },
    { what: 'a route query parameter', path: 'options.query.q', keys: ROUTE_OPTION_KEYS.query, pass: (o) => app.get('/typo-q', { query: { q: never(o) } }, () => 'x') },
    { what: 'createLogger', path: 'options', keys: LOGGER_OPTION_KEYS.logger, pass: (o) => createLogger(never(o)) },
    { what: 'createJSONLogger', path: 'options', keys: LOGGER_OPTION_KEYS.json, pass: (o) => createJSONLogger(never(o)) },
    { what: 'new CDSHooksService', path: 'options', keys: CDS_OPTION_KEYS.service, pass: (o) => new CDSHooksService(never(o)) },
    { what: 'a CDS service definition', path: 'definition', keys: CDS_OPTION_KEYS.definition, pass: (o) => new CDSHooksService().hook('patient-view', never(o), () => ({ cards: [] })) },
    { what: 'CDS client auth', path: 'auth', keys: CDS_OPTION_KEYS.auth, pass: (o) => new CDSHooksService({ auth: never(o) }) },
    { what: 'a CDS trusted issuer', path: 'auth.issuers[0]', keys: CDS_OPTION_KEYS.issuer, pass: (o) => new CDSHooksService({ auth: { issuers: [never(o)] } }) },
    { what: 'new NoteReaderService', path: 'options', keys: NOTEREADER_OPTION_KEYS, pass: (o) => new NoteReaderService(never(o)) },
    { what: 'readCDA', path: 'options', keys: XML_LIMIT_KEYS, pass: (o) => readCDA(CDA, never(o)) },
    { what: 'enrichCDA limits', path: 'limits', keys: XML_LIMIT_KEYS, pass: (o) => enrichCDA(CDA, {}, never(o)) },
    { what: 'enrichCDA enrichment', path: 'enrichment', keys: ['problems', 'medications', 'allergies'], pass: (o) => enrichCDA(CDA, never(o)) },
    { what: 'startSandbox', path: 'startSandbox: options', keys: SANDBOX_OPTION_KEYS.options, pass: (o) => startSandbox(never(o)) },
    { what: 'a sandbox client', path: 'startSandbox: options.clients[0]', keys: SANDBOX_OPTION_KEYS.client, pass: (o) => startSandbox({ clients: [never(o)] }) },
    { what: 'sandbox.connectionString', path: 'connectionString: options', keys: CONNECTION_STRING_OPTION_KEYS, pass: (o) => sandbox.connectionString(undefined, never(o)) },
    { what: 'faults.failNext', path: 'faults.failNext: options', keys: FAULT_OPTION_KEYS.failNext, pass: (o) => sandbox.faults.failNext(1, 503, never(o)) },
    { what: 'faults.latency', path: 'faults.latency: options', keys: FAULT_OPTION_KEYS.target, pass: (o) => sandbox.faults.latency(0, never(o)) },
    { what: 'faults.dropNext', path: 'faults.dropNext: options', keys: FAULT_OPTION_KEYS.target, pass: (o) => sandbox.faults.dropNext(1, never(o)) },
    { what: 'new LocalEventDispatcher', path: 'LocalEventDispatcher: options', keys: LOCAL_OPTION_KEYS, pass: (o) => new LocalEventDispatcher(never(o)) },
    { what: 'new CloudEventsDispatcher', path: 'CloudEventsDispatcher: options', keys: CLOUD_EVENTS_OPTION_KEYS, pass: (o) => new CloudEventsDispatcher(never(o)) },
    { what: 'natsDispatcher', path: 'natsDispatcher: options', keys: NATS_OPTION_KEYS, pass: (o) => natsDispatcher(never(nats), never(o)) },
    { what: 'redisStore', path: 'redisStore: options', keys: REDIS_OPTION_KEYS, pass: (o) => redisStore(never(redis), never(o)) },
  ];
}

/** Calls `pass` and gives what it threw, synchronously or as a rejection. */
async function thrown(pass: () => unknown): Promise<unknown> {
  try {
    const result = pass();
    if (result instanceof Promise) await result;
    else if (result !== null && typeof result === 'object' && Symbol.asyncIterator in result) await (result as AsyncGenerator).next();
    else if (result !== null && typeof result === 'object' && Symbol.iterator in result && typeof (result as Generator).next === 'function') (result as Generator).next();
  } catch (error) {
    return error;
  }
  return undefined;
}

test('every public option object refuses a one-letter typo of each of its keys, naming the option path and the key meant', async (t) => {
  const sandbox = await startSandbox();
  t.after(() => sandbox.close());
  const gw = new AsyncFHIRGateway();
  t.after(() => gw.close());
  gw.addSource('s', sandbox.connectionString());
  const sync = new FHIRGateway();
  t.after(() => sync.close());
  const app = createServiceAPI({ logger: { debug() {}, info() {}, warn() {}, error() {} } });
  t.after(() => app.close());
  let checked = 0;
  const wrongAnswers: string[] = [];
  for (const { what, path, keys, pass } of covered({ gw, sync, sandbox, app })) {
    assert.ok(keys.length > 0, what);
    for (const key of keys) {
      const wrong = typo(key);
      assert.ok(!keys.includes(wrong), `${what}: the typo ${wrong} is a key`);
      const error = await thrown(() => pass({ [wrong]: undefined }));
      const expected = key.length < 3 ? `${path} has an unknown option (key 1); the options are ${keys.join(', ')}` : `${path}.${wrong} is not an option; did you mean \`${key}\`?`;
      if (!(error instanceof TypeError) || error.message !== expected) wrongAnswers.push(`${what} { ${wrong} }: ${String(error)}`);
      checked += 1;
    }
  }
  assert.deepEqual(wrongAnswers, []);
  assert.ok(checked > 200, `${checked} keys checked`);
});

test('a key that is no near miss (perhaps a pasted secret) is named by its position, never quoted', async () => {
  const secret = 'sk_live_4f9c2a7e1b';
  for (const pass of [
    () => new AsyncFHIRGateway({ timeoutSeconds: 5, [secret]: true } as never),
    () => createServiceAPI({ title: 'x', [secret]: 1 } as never),
    () => redisStore(redis as never, { keyPrefix: 'a:', [secret]: 1 } as never),
  ]) {
    const error = await thrown(pass);
    assert.ok(error instanceof TypeError);
    assert.match(error.message, /has an unknown option \(key 2\); the options are /);
    assert.ok(!error.message.includes(secret));
  }
});

test('keys every object takes stay accepted: a known key with its value passes the key check', async (t) => {
  const sandbox = await startSandbox({ port: 0, seed: false });
  t.after(() => sandbox.close());
  await using gw = new AsyncFHIRGateway({ maxConnections: 4, timeoutSeconds: 10, retry: false, events: false });
  gw.addSource('s', sandbox.connectionString(undefined, { discover: false }));
  const created = await gw.create({ resourceType: 'Patient' }, 's', { retry: false, signal: AbortSignal.timeout(20_000), ifNoneExist: 'identifier=x|1' });
  assert.equal((await gw.read('Patient', created.id!, 's', { signal: AbortSignal.timeout(20_000), retry: true })).id, created.id);
  // An inherited key is no key of the object: only its own keys are checked.
  const inherited = Object.create({ extra: 1 }) as Record<string, unknown>;
  inherited['retry'] = false;
  assert.equal((await gw.read('Patient', created.id!, 's', inherited)).id, created.id);
});
