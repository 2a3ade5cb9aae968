// The package as a user gets it: what the tarball holds and weighs, the bin, and a scratch consumer that
// installs the tarball, compiles against every entry under the strictest settings with the library checks
// on (no saxes or other foreign type may leak into a public .d.ts), and loads every entry at run time from
// ES modules and from CommonJS (`require`, Node >= 20.19).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { exportedNames } from '../support/exported-names.js';
import { installInConsumer, packFreshBuild, ROOT, run, TSC, type PackedPackage } from '../support/packed-package.js';

/**
 * The packed tarball stays under this many bytes (issue 25: it was 1.14 MB, 53% of it source maps). Raised
 * from 700 kB when issues 34-37 added the proxy, TLS, identity, trace and option-key code and their docs
 * (736 kB packed, 2026-11-28): still no source maps or sources, which is what the limit guards. At 809 kB
 * (2026-11-29) the JavaScript stopped carrying the comments the declarations already hold: 682 kB.
 */
const MAX_PACKED_BYTES = 800_000;

interface PackageJSON {
  version: string;
  bin: Record<string, string>;
  exports: Record<string, string | { types: string; default: string }>;
  repository: { url: string };
  homepage: string;
  bugs: { url: string };
  keywords: string[];
}
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as PackageJSON;

/** Every entry of the exports map (`fhirgate`, `fhirgate/soap`, ...) with the source file behind it. */
const ENTRIES = Object.entries(pkg.exports)
  .filter((e): e is [string, { types: string; default: string }] => typeof e[1] === 'object')
  .map(([subpath, target]) => ({ specifier: subpath === '.' ? 'fhirgate' : `fhirgate/${subpath.slice(2)}`, source: join(ROOT, target.types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts')) }));

let packed: PackedPackage;
let consumer: ReturnType<typeof installInConsumer>;
before(() => {
  packed = packFreshBuild();
  consumer = installInConsumer(packed.tarball);
});
after(() => {
  consumer?.remove();
  packed?.remove();
});

test('the tarball: the bin, the docs and the changelog are in; no TypeScript sources, no source maps; under 800 kB', (t) => {
  const files = packed.info.files.map((f) => f.path);
  const bin = pkg.bin.fhirgate?.replace(/^\.\//, '');
  assert.equal(bin, 'bin/fhirgate.js');
  for (const name of [bin, 'README.md', 'LICENSE', 'CHANGELOG.md', 'package.json', 'docs/errors.md', 'dist/index.js', 'dist/index.d.ts', 'dist/cli/index.js']) {
    assert.ok(files.includes(name), `${name} is packed`);
  }
  assert.deepEqual(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')), [], 'no .ts sources are shipped');
  // No map: one with its sources inline doubled the package, one without them points at files not shipped.
  assert.deepEqual(files.filter((f) => f.endsWith('.map')), []);
  const pointing = files.filter((f) => f.endsWith('.js') && readFileSync(join(packed.dir, f), 'utf8').includes('//# sourceMappingURL='));
  assert.deepEqual(pointing, []);
  t.diagnostic(`npm pack: ${packed.info.size} bytes packed, ${packed.info.unpackedSize} unpacked, ${files.length} files`);
  assert.ok(packed.info.size < MAX_PACKED_BYTES, `${packed.info.size} bytes packed`);
});

test('package.json says where the project lives, and what it is about', () => {
  assert.match(pkg.repository.url, /^git\+https:\/\/github\.com\/[\w.-]+\/[\w.-]+\.git$/);
  const repo = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
  assert.equal(pkg.homepage, `${repo}#readme`);
  assert.equal(pkg.bugs.url, `${repo}/issues`);
  assert.ok(pkg.keywords.includes('fhir') && pkg.keywords.length >= 5);
});

test('the packed bin runs from the built dist/ with plain node (no TypeScript loader)', () => {
  const bin = join(consumer.dir, 'node_modules', 'fhirgate', 'bin', 'fhirgate.js');
  const help = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^Usage: fhirgate <command>/);
  const version = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8' });
  assert.equal(version.stdout.trim(), pkg.version);
  const bad = spawnSync(process.execPath, [bin, 'serve', '--source', 'ehr=fhir://h.example.org/?client_id=a&client_secret=s&token_url=http://h.example.org/token'], { encoding: 'utf8' });
  assert.equal(bad.status, 2, 'a value on the command line that does not fit is a usage mistake');
  assert.match(bad.stderr, /^fhirgate serve: --source ehr: token_url must be https/);
});

test('a strict TypeScript consumer (nodenext, exactOptionalPropertyTypes, skipLibCheck off) compiles against every entry, from ESM and CommonJS', (t) => {
  // Every exported name of every entry, imported by name: a name the .d.ts files lost fails here.
  const imports = ENTRIES.map(({ specifier, source }, i) => {
    const names = [...exportedNames(source)].map(([name, { typeOnly }]) => `${typeOnly ? 'type ' : ''}${name} as e${i}_${name}`);
    return `import { ${names.join(', ')} } from '${specifier}';`;
  });
  writeFileSync(join(consumer.dir, 'every-entry.ts'), `${imports.join('\n')}
import { AsyncFHIRGateway, createServiceAPI, isFhirgateError, type Patient } from 'fhirgate';
import { NoteReaderService, readCDA } from 'fhirgate/soap';

const gw = new AsyncFHIRGateway({ maxConnections: 10 });
gw.addSource('ehr', 'fhir://localhost:8080/fhir/');
try {
  const patient: Patient = await gw.read('Patient', '123', 'ehr');
  console.log(patient.birthDate);
} catch (err) {
  if (isFhirgateError(err, 'ERR_NETWORK')) console.log(err.code);
} finally {
  await gw.close();
}
const nr = new NoteReaderService();
nr.method('ProcessDocument', ({ document }) => ({ document, error: readCDA(document).problems.length === 0 ? 'no problems' : '' }));
createServiceAPI().registerGateway(gw).registerService(nr);
`);
  writeFileSync(join(consumer.dir, 'require.cts'), `import fhirgate = require('fhirgate');
import errors = require('fhirgate/errors');
const gw: fhirgate.AsyncFHIRGateway = new fhirgate.AsyncFHIRGateway();
export const code: errors.ErrorCode = 'ERR_TIMEOUT';
export const closing: Promise<void> = gw.close();
`);
  writeFileSync(join(consumer.dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true,
      exactOptionalPropertyTypes: true,
      skipLibCheck: false,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      noEmit: true,
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules', '@types')],
    },
    files: ['every-entry.ts', 'require.cts'],
  }));
  const compile = spawnSync(process.execPath, [TSC, '-p', consumer.dir], { encoding: 'utf8' });
  t.diagnostic(`tsc --strict --exactOptionalPropertyTypes --skipLibCheck false (nodenext), ${ENTRIES.length} entries: exit ${compile.status}${compile.stdout.trim() === '' ? '' : `\n${compile.stdout}`}`);
  assert.equal(compile.status, 0, compile.stdout + compile.stderr);

  // The check can fail: a use of the API that does not fit its types is refused.
  writeFileSync(join(consumer.dir, 'bad.ts'), "import { AsyncFHIRGateway } from 'fhirgate';\nconst n: number = await new AsyncFHIRGateway().read('Patient', '1');\nexport { n };\n");
  const bad = spawnSync(process.execPath, [TSC, '-p', consumer.dir, '--noEmit'], { encoding: 'utf8' });
  const badConfig = JSON.parse(readFileSync(join(consumer.dir, 'tsconfig.json'), 'utf8')) as { files: string[] };
  badConfig.files = ['bad.ts'];
  writeFileSync(join(consumer.dir, 'tsconfig.bad.json'), JSON.stringify(badConfig));
  const refused = spawnSync(process.execPath, [TSC, '-p', join(consumer.dir, 'tsconfig.bad.json')], { encoding: 'utf8' });
  assert.equal(bad.status, 0, 'bad.ts is not in the first project');
  assert.notEqual(refused.status, 0);
  assert.match(refused.stdout, /Patient/);
});

test('every entry loads at run time from the installed package with the names of its sources; require() works from CommonJS', async () => {
  const script = `const out = {}; for (const s of ${JSON.stringify(ENTRIES.map((e) => e.specifier))}) out[s] = Object.keys(await import(s)).sort(); console.log(JSON.stringify(out));`;
  const loaded = JSON.parse(run(process.execPath, ['--input-type=module', '-e', script], consumer.dir).stdout) as Record<string, string[]>;
  for (const { specifier, source } of ENTRIES) {
    const values = [...exportedNames(source)].filter(([, { typeOnly }]) => !typeOnly).map(([name]) => name).sort();
    assert.deepEqual(loaded[specifier], values, specifier);
  }
  const cjs = run(process.execPath, ['--input-type=commonjs', '-e', "const f = require('fhirgate'); const e = require('fhirgate/errors'); console.log(typeof f.AsyncFHIRGateway, f.FHIRHTTPError === e.FHIRHTTPError)"], consumer.dir);
  assert.equal(cjs.stdout.trim(), 'function true');
});

test("the README's ten lines run in a project that installed the packed tarball (its source a sandbox, its port free)", async () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const tenLines = /## Ten lines\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(tenLines !== undefined, 'the README has its ten lines');
  const script = [
    "import { startSandbox } from 'fhirgate/sandbox';",
    "const sandbox = await startSandbox({ seed: 'a' });",
    tenLines
      .replace(/gw\.addSource\('epic', '[^']*'\);/, "gw.addSource('epic', sandbox.connectionString());")
      .replace(/await app\.listen\(\d+\);/, "const server = await app.listen(0, '127.0.0.1');"),
    "const res = await fetch(`http://127.0.0.1:${server.address().port}/fhir/transform/Patient/a-patient-1?source=epic`);",
    'console.log(JSON.stringify({ status: res.status, body: await res.json() }));',
    'await app.close(); await gw.close(); await sandbox.close();',
  ].join('\n');
  writeFileSync(join(consumer.dir, 'ten-lines.mjs'), script);
  const out = JSON.parse(run(process.execPath, ['ten-lines.mjs'], consumer.dir).stdout.split('\n').find((line) => line.startsWith('{"status"')) ?? 'null') as { status: number; body: { id: string; extension: { url: string; valueString: string }[] } };
  assert.equal(out.status, 200);
  assert.equal(out.body.id, 'a-patient-1');
  assert.deepEqual(out.body.extension.at(-1), { url: 'https://example.org/seen-by', valueString: 'fhirgate' });
});
