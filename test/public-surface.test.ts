import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

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
  for (const entry of ['src/cds/index.ts', 'src/sandbox/index.ts', 'src/errors.ts']) {
    assert.deepEqual([...importGraph(entry).packages], [], entry);
  }
});

test('the package exports map names every public entry and only those', () => {
  const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown>; dependencies: Record<string, string>; sideEffects: boolean; type: string };
  assert.deepEqual(Object.keys(pkg.exports).sort(), ['.', './cds', './errors', './package.json', './sandbox', './soap']);
  assert.deepEqual(Object.keys(pkg.dependencies), ['saxes']);
  assert.equal(pkg.sideEffects, false);
  assert.equal(pkg.type, 'module');
});

test('the main entry exports exactly the documented names', async () => {
  const api = await import('../src/index.js');
  assert.deepEqual(Object.keys(api).sort(), [
    'AsyncFHIRGateway', 'AuthTokenError', 'CDSHooksService', 'DEFAULT_SCOPE', 'ERROR_CODES', 'FHIRGateway', 'FHIRHttpError',
    'FhirgateError', 'GATEWAY_DEFAULTS', 'HTTP_STATUS_BY_CODE', 'HandlerRegistry', 'LocalEventDispatcher', 'MOUNT', 'ModifyHandle', 'RESOURCE_TYPES',
    'SOURCE_TAG_SYSTEM', 'ServiceAPI', 'aggregateSources', 'createEntry', 'createJsonLogger', 'createServiceAPI', 'deleteEntry',
    'getAllGateways', 'getApp', 'getGateway', 'httpStatusOf', 'isFhirId', 'isFhirgateError', 'isResourceType', 'json', 'localHandler',
    'operationOutcome', 'outcomeMessage', 'parseConnectionString', 'readEntry', 'reply', 'requestBundle', 'searchEntry',
    'searchsetBundle', 'updateEntry',
  ]);
});
