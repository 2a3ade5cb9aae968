import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { exportedNames } from './support/exported-names.js';
import { ROOT } from './support/code-tree.js';

const root = ROOT;

/** Every module a source file reaches through static and dynamic imports, and the bare packages it names. */
function importGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s(?:type\s)?[^'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)|(?:^|\n)\s*import\s+'([^']+)'/g)) {
      const spec = m[1] ?? m[2] ?? m[3]!;
      if (/^\s*(?:import|export)\s+type\s/.test(m[0].trim()) && !m[0].includes('import(')) continue;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      else if (!spec.startsWith('node:')) packages.add(spec);
    }
  };
  visit(resolve(root, entry));
  return { files, packages };
}

test('importing the main entry never loads saxes or the sandbox', () => {
  const { files, packages } = importGraph('src/index.ts');
  assert.ok(files.size > 20, 'the walk found the library');
  assert.deepEqual([...packages], []);
  assert.equal([...files].filter((f) => f.includes('/src/soap/') || f.includes('/src/sandbox/')).length, 0);
});

test('saxes is reached only through fhirgate/soap', () => {
  assert.deepEqual([...importGraph('src/soap/index.ts').packages], ['saxes']);
  for (const entry of ['src/cds/index.ts', 'src/facade/index.ts', 'src/sandbox/index.ts', 'src/errors.ts', 'src/redis/index.ts', 'src/nats/index.ts']) {
    assert.deepEqual([...importGraph(entry).packages], [], entry);
  }
});

test('fhirgate/cluster reaches only the host, events, errors and shared leaves, and no package', () => {
  const { files, packages } = importGraph('src/cluster/index.ts');
  assert.deepEqual([...packages], []);
  const rooms = new Set([...files].map((f) => f.slice(resolve(root, 'src').length + 1).split('/')[0]!));
  const direct = [...files].filter((f) => f.includes('/src/cluster/')).flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/from '\.\.\/([^/']+)/g)].map((m) => m[1]));
  assert.deepEqual([...new Set(direct)].sort(), ['errors.js', 'host', 'lib'], 'src/cluster imports only the host, errors and lib (events when it needs them)');
  for (const room of ['gateway', 'cds', 'soap', 'sandbox', 'auth', 'http']) assert.ok(!rooms.has(room), `cluster reaches src/${room}`);
  assert.ok(rooms.has('host') && rooms.has('cluster'));
});

test('the package exports map names every public entry and only those', () => {
  const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown>; dependencies: Record<string, string>; sideEffects: boolean; type: string };
  assert.deepEqual(Object.keys(pkg.exports).sort(), ['.', './cds', './cluster', './errors', './facade', './mount', './nats', './package.json', './redis', './sandbox', './soap']);
  assert.deepEqual(Object.keys(pkg.dependencies), ['saxes']);
  assert.equal(pkg.sideEffects, false);
  assert.equal(pkg.type, 'module');
});

/** The runtime names of every entry. */
const ENTRIES: Record<string, { module: string; names: string[] }> = {
  '.': {
    module: '../src/index.js',
    names: [
      'AsyncFHIRGateway', 'AuthTokenError', 'CDSHooksService', 'CloudEventsDispatcher', 'DEFAULT_SCOPE', 'ERROR_CODES', 'FHIRGateway', 'FHIRHTTPError',
      'FhirgateError', 'GATEWAY_DEFAULTS', 'HTTP_STATUS_BY_CODE', 'IDENTITY_DEFAULTS', 'LocalEventDispatcher', 'MemoryStore', 'RESOURCE_TYPES',
      'SOURCE_TAG_SYSTEM', 'ServiceAPI', 'aggregateSources', 'createEntry', 'createJSONLogger', 'createLogger', 'createServiceAPI', 'deleteEntry',
      'getAllGateways', 'getApp', 'getGateway', 'httpStatusOf', 'isFHIRId', 'isFhirgateError', 'isResourceType', 'localHandler',
      'operationOutcome', 'parseConnectionString', 'readEntry', 'reply', 'requestBundle', 'searchEntry',
      'searchsetBundle', 'updateEntry',
    ],
  },
  './errors': {
    module: '../src/errors.js',
    names: ['AuthTokenError', 'ERROR_CODES', 'FHIRHTTPError', 'FhirgateError', 'HTTP_STATUS_BY_CODE', 'httpStatusOf', 'isFhirgateError'],
  },
  './mount': { module: '../src/mount/index.js', names: ['MOUNT', 'json', 'jsonErrorReply'] },
  './facade': { module: '../src/facade/index.js', names: ['AUDIT_EVENT_NAME', 'FHIRFacade', 'RESERVED_NAMES'] },
  './cds': { module: '../src/cds/index.js', names: ['CDSError', 'CDSHooksService', 'CDS_DEFAULTS'] },
  './soap': {
    module: '../src/soap/index.js',
    names: ['NOTEREADER_DEFAULTS', 'NoteReaderService', 'SOAPFault', 'cdaToFHIR', 'enrichCDA', 'readCDA'],
  },
  './cluster': { module: '../src/cluster/index.js', names: ['ClusterPrimary', 'serveCluster'] },
  './redis': { module: '../src/redis/index.js', names: ['MemoryStore', 'redisStore'] },
  './nats': { module: '../src/nats/index.js', names: ['natsDispatcher'] },
  './sandbox': { module: '../src/sandbox/index.js', names: ['MRN_SYSTEM', 'SANDBOX_DEFAULTS', 'seedResources', 'startSandbox'] },
};

/** The source file of a package entry (`'.'` → `src/index.ts`, `'./soap'` → `src/soap/index.ts`). */
function entryFile(entry: string): string {
  return resolve(ROOT, 'test', ENTRIES[entry]!.module.replace(/\.js$/, '.ts'));
}

for (const [entry, { module, names }] of Object.entries(ENTRIES)) {
  test(`${entry} exports exactly its documented names`, async () => {
    const api = (await import(module)) as Record<string, unknown>;
    assert.deepEqual(Object.keys(api).sort(), [...names].sort());
  });
}

test('every value an entry exports is shown in the docs (README.md or docs/*.md, in code)', () => {
  const pages = [join(root, 'README.md'), ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(root, 'docs', f))];
  const code = pages.map((p) => readFileSync(p, 'utf8')).flatMap((text) => [...text.matchAll(/```[\s\S]*?```|`[^`]+`/g)].map((m) => m[0])).join('\n');
  const shown = (name: string) => new RegExp(`(?<![\\w$])${name.replaceAll('$', '\\$')}(?![\\w$])`).test(code);
  assert.ok(!shown('writeFault') && shown('readCDA'), 'the check can fail');
  for (const entry of Object.keys(ENTRIES)) {
    assert.deepEqual(ENTRIES[entry]!.names.filter((name) => !shown(name)), [], `${entry}: undocumented exports`);
  }
});

test('fhirgate re-exports all of fhirgate/errors, types included: one door', () => {
  const main = exportedNames(entryFile('.'));
  const missing = [...exportedNames(entryFile('./errors')).keys()].filter((name) => !main.has(name));
  assert.deepEqual(missing, []);
});

test('the types that public signatures and `fhirgate serve` handler modules use are importable', () => {
  const main = exportedNames(entryFile('.'));
  for (const name of ['HandlerSetup', 'HandlerModuleContext', 'QueryParameterSpec', 'Readiness', 'LogLevel', 'JSONLoggerOptions', 'LocalEventDispatcherOptions', 'SearchsetBundleOptions', 'IssueType', 'IssueSeverity', 'ModifyHandle', 'R4OnlyResourceType']) {
    assert.equal(main.get(name)?.typeOnly, true, name);
  }
});

test('the main entry leaves the plumbing out: the Mountable kit is fhirgate/mount, the handler registry stays inside', async () => {
  const api = (await import('../src/index.js')) as Record<string, unknown>;
  for (const name of ['HandlerRegistry', 'MOUNT', 'json', 'gatewayMountable', 'TrieRouter', 'AgentPool']) assert.ok(!(name in api), name);
});

test('one acronym style, and no second name for anything: acronyms are all capitals in every exported value and type', () => {
  // The spelling rule: FHIR, HTTP, JSON, XML, CDA, SOAP, WSDL, JWT, JWK, CDS, CORS, API, URL are written
  // in capitals (`FHIRHTTPError`, `isFHIRId`, `createJSONLogger`, `readCDA`); `Fhirgate` is a name, not
  // an acronym; `Id` and `Url` follow FHIR's own element names. The package was never published, so
  // no old spelling is kept as an alias.
  const mixed = /(?:Fhir(?!gate)|Http|Json|Xml|Cda|Soap|Wsdl|Jwt|Jwk|Cds|Cors|Api)(?![a-z])|(?:Fhir(?!gate)|Http|Json|Xml|Cda|Soap|Wsdl|Jwt|Jwk|Cds|Cors|Api)[A-Z0-9]/;
  assert.ok(mixed.test('isFhirId') && mixed.test('FHIRHttpError') && mixed.test('XmlLimits') && !mixed.test('isFhirgateError'), 'the check can fail');
  for (const entry of Object.keys(ENTRIES)) {
    const names = [...exportedNames(entryFile(entry)).keys()];
    assert.ok(names.length >= ENTRIES[entry]!.names.length, entry);
    assert.deepEqual(names.filter((n) => mixed.test(n)), [], entry);
  }
});

test('no public declaration is marked @deprecated: a name that was never published has no alias', () => {
  const offenders: string[] = [];
  const visit = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.ts') && readFileSync(path, 'utf8').includes('@deprecated')) offenders.push(path.slice(root.length + 1));
    }
  };
  visit(resolve(root, 'src'));
  assert.deepEqual(offenders, []);
});

test('a room index.ts exports only what the package exports; internals are imported by path', async () => {
  const main = (await import('../src/index.js')) as Record<string, unknown>;
  for (const room of ['auth', 'events', 'fhir', 'gateway', 'host']) {
    const index = (await import(`../src/${room}/index.js`)) as Record<string, unknown>;
    const extra = Object.keys(index).filter((name) => main[name] !== index[name]);
    assert.deepEqual(extra, [], `src/${room}/index.ts`);
  }
});

test('fhirgate/redis and fhirgate/nats export their adapters only, and load no client package', async () => {
  assert.deepEqual(Object.keys(await import('../src/redis/index.js')).sort(), ['MemoryStore', 'redisStore']);
  assert.deepEqual(Object.keys(await import('../src/nats/index.js')).sort(), ['natsDispatcher']);
  const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  assert.ok(pkg.devDependencies.redis !== undefined && pkg.devDependencies.nats !== undefined, 'the clients are devDependencies');
});
