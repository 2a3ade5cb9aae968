// Every key an option object of a public entry takes (the lists its unknown-key check uses, which the
// compiler holds to the interfaces) is documented: by a TSDoc comment on the key in its interface, or,
// for an option typed inline or a key left without one, in a code span of docs/*.md.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../support/code-tree.js';
import { GATEWAY_OPTION_KEYS } from '../../src/gateway/core/options.js';
import { SYNC_GATEWAY_OPTION_KEYS } from '../../src/gateway/sync/options.js';
import { CALL_OPTION_KEYS } from '../../src/gateway/core/call-options.js';
import { PAGING_OPTION_KEYS } from '../../src/gateway/core/paging.js';
import { SOURCE_OPTION_KEYS } from '../../src/gateway/core/source-keys.js';
import { BULK_OPTION_KEYS } from '../../src/gateway/bulk/options.js';
import { AGGREGATE_OPTION_KEYS } from '../../src/gateway/aggregate-sources.js';
import { ENTRY_OPTION_KEYS } from '../../src/gateway/core/bundle-entries.js';
import { SERVICE_API_OPTION_KEYS } from '../../src/host/options.js';
import { CORS_OPTION_KEYS } from '../../src/host/cors.js';
import { APP_OPTION_KEYS } from '../../src/host/app.js';
import { ROUTE_OPTION_KEYS } from '../../src/host/custom-route.js';
import { LOGGER_OPTION_KEYS } from '../../src/host/logger.js';
import { OPERATION_EXAMPLE_KEYS } from '../../src/host/openapi-examples.js';
import { CDS_OPTION_KEYS } from '../../src/cds/types.js';
import { NOTEREADER_OPTION_KEYS, XML_LIMIT_KEYS } from '../../src/soap/options.js';
import { SANDBOX_OPTION_KEYS } from '../../src/sandbox/options.js';
import { CONNECTION_STRING_OPTION_KEYS } from '../../src/sandbox/connection-string.js';
import { FAULT_OPTION_KEYS } from '../../src/sandbox/faults.js';
import { CLOUD_EVENTS_OPTION_KEYS } from '../../src/events/cloud-events-dispatcher.js';
import { LOCAL_OPTION_KEYS } from '../../src/events/local-dispatcher.js';
import { REDIS_OPTION_KEYS } from '../../src/redis/redis-store.js';
import { NATS_OPTION_KEYS } from '../../src/nats/nats-dispatcher.js';
import { OPTION_KEYS as FACADE_OPTION_KEYS } from '../../src/facade/options.js';

/** Each key list, with the interfaces that declare its keys (none: typed inline, documented in docs/ only). */
const LISTS: readonly (readonly [string, readonly string[], readonly string[]])[] = [
  ['new AsyncFHIRGateway', GATEWAY_OPTION_KEYS, ['AsyncFHIRGatewayOptions', 'GatewayRetryOptions']],
  ['new FHIRGateway', SYNC_GATEWAY_OPTION_KEYS, ['FHIRGatewayOptions', 'GatewayRetryOptions']],
  ['a gateway call', CALL_OPTION_KEYS.call, ['CallOptions']],
  ['create', CALL_OPTION_KEYS.create, ['CallOptions', 'CreateOptions']],
  ['the sync create', CALL_OPTION_KEYS.syncCreate, ['CreateOptions']],
  ['pages', PAGING_OPTION_KEYS.pages, ['PageOptions']],
  ['searchAll', PAGING_OPTION_KEYS.searchAll, ['PageOptions', 'SearchAllOptions']],
  ['addSource, rotateKey', SOURCE_OPTION_KEYS, ['SourceOptions']],
  ['bulkExport', BULK_OPTION_KEYS.bulkExport, ['BulkExportBaseOptions', 'BulkExportOptions']],
  ['bulkExportAll', BULK_OPTION_KEYS.bulkExportAll, ['BulkExportBaseOptions', 'BulkExportOptions', 'BulkExportAllOptions']],
  ['aggregateSources', AGGREGATE_OPTION_KEYS, ['AggregateSourcesOptions']],
  ['createEntry', ENTRY_OPTION_KEYS.createEntry, []],
  ['updateEntry', ENTRY_OPTION_KEYS.updateEntry, []],
  ['createServiceAPI', SERVICE_API_OPTION_KEYS, ['ServiceAPIOptions']],
  ['cors', CORS_OPTION_KEYS, ['CORSOptions']],
  ['registerGateway, registerService', APP_OPTION_KEYS.mount, ['MountOptions']],
  ['app.createServer', APP_OPTION_KEYS.createServer, []],
  ['app.close', APP_OPTION_KEYS.close, []],
  ['a custom route', ROUTE_OPTION_KEYS.route, ['CustomRouteOptions']],
  ['a query parameter of a route', ROUTE_OPTION_KEYS.query, ['QueryParameterSpec']],
  ['createJSONLogger', LOGGER_OPTION_KEYS.json, ['JSONLoggerOptions']],
  ['createLogger', LOGGER_OPTION_KEYS.logger, ['JSONLoggerOptions', 'LoggerOptions']],
  ['openapiExamples', OPERATION_EXAMPLE_KEYS, ['OperationExample']],
  ['new CDSHooksService', CDS_OPTION_KEYS.service, ['CDSHooksServiceOptions']],
  ['a CDS service definition', CDS_OPTION_KEYS.definition, ['CDSServiceDefinition']],
  ['CDS client auth', CDS_OPTION_KEYS.auth, ['ClientAuthOptions']],
  ['a CDS trusted issuer', CDS_OPTION_KEYS.issuer, ['TrustedIssuer']],
  ['new NoteReaderService', NOTEREADER_OPTION_KEYS, ['NoteReaderServiceOptions']],
  ['readCDA, enrichCDA limits', XML_LIMIT_KEYS, ['XMLLimits']],
  ['startSandbox', SANDBOX_OPTION_KEYS.options, ['SandboxOptions']],
  ['a sandbox client', SANDBOX_OPTION_KEYS.client, ['SandboxSecretClient', 'SandboxKeyClient', 'SandboxJWKSClient']],
  ['sandbox.connectionString', CONNECTION_STRING_OPTION_KEYS, ['ConnectionStringOptions']],
  ['faults.failNext', FAULT_OPTION_KEYS.failNext, ['FailNextOptions']],
  ['faults.latency, faults.dropNext', FAULT_OPTION_KEYS.target, []],
  ['new CloudEventsDispatcher', CLOUD_EVENTS_OPTION_KEYS, ['CloudEventsDispatcherOptions', 'QueuedDispatcherOptions']],
  ['new LocalEventDispatcher', LOCAL_OPTION_KEYS, ['LocalEventDispatcherOptions']],
  ['natsDispatcher', NATS_OPTION_KEYS, ['NatsDispatcherOptions', 'QueuedDispatcherOptions']],
  ['redisStore', REDIS_OPTION_KEYS, ['RedisStoreOptions']],
  ...Object.entries(FACADE_OPTION_KEYS).map(([name, keys]) => [`the facade's ${name}`, keys, ['FHIRFacadeOptions', 'CallerPolicy', 'APIKeyCaller', 'IssuerCallers', 'RateOptions', 'SourceLimits', 'AuditSinkOptions']] as const),
];

function files(dir: string, ext: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith(ext)).map((f) => join(dir, f));
}

/** The members of every interface under src/ that carry a TSDoc comment, by interface name. */
function documentedMembers(): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const file of files(join(ROOT, 'src'), '.ts')) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/^export interface (\w+)[^{]*\{\n([\s\S]*?)^\}/gm)) {
      const members = found.get(match[1]!) ?? new Set<string>();
      const lines = match[2]!.split('\n');
      lines.forEach((line, i) => {
        const member = /^ {2}(?:readonly )?(\w+)\??:/.exec(line)?.[1];
        if (member !== undefined && lines[i - 1]?.trimEnd().endsWith('*/') === true) members.add(member);
      });
      found.set(match[1]!, members);
    }
  }
  return found;
}

/** Every code span and code block of docs/*.md. */
function docsCode(): string {
  const text = files(join(ROOT, 'docs'), '.md').map((f) => readFileSync(f, 'utf8')).join('\n');
  return [...text.matchAll(/```[\s\S]*?```|`[^`\n]+`/g)].map((m) => m[0]).join('\n');
}

test('every key of every public option object is documented, in its interface\'s TSDoc or in docs/*.md', () => {
  const tsdoc = documentedMembers();
  const code = docsCode();
  const undocumented: string[] = [];
  for (const [what, keys, interfaces] of LISTS) {
    for (const name of interfaces) assert.ok(tsdoc.has(name), `${what}: no interface ${name} under src/`);
    for (const key of keys) {
      const inTSDoc = interfaces.some((name) => tsdoc.get(name)!.has(key));
      if (!inTSDoc && !new RegExp(`\\b${key}\\b`).test(code)) undocumented.push(`${what}: ${key}`);
    }
  }
  assert.deepEqual(undocumented, []);
});
