import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

interface PackedFile {
  path: string;
}

/** A fresh build of the package in a temporary copy (the repository's own dist/ is left alone), then its `npm pack --dry-run --json` file list. */
function packFreshCopy(): { dir: string; files: string[]; pkg: { bin: Record<string, string> } } {
  const dir = mkdtempSync(join(tmpdir(), 'fhirgate-pack-test-'));
  for (const name of ['package.json', 'README.md', 'docs', 'LICENSE', 'CHANGELOG.md', 'bin']) cpSync(join(ROOT, name), join(dir, name), { recursive: true });
  const build = spawnSync(process.execPath, [TSC, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(dir, 'dist')], { encoding: 'utf8' });
  assert.equal(build.status, 0, build.stdout + build.stderr);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const pack = spawnSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir, encoding: 'utf8' });
  assert.equal(pack.status, 0, pack.stderr);
  const [info] = JSON.parse(pack.stdout) as Array<{ files: PackedFile[] }>;
  return { dir, files: info!.files.map((f) => f.path), pkg: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { bin: Record<string, string> } };
}

let packed: ReturnType<typeof packFreshCopy>;
before(() => {
  packed = packFreshCopy();
});
after(() => rmSync(packed.dir, { recursive: true, force: true }));

test('the packed tarball: every source map resolves (sources inline, equal to src/), the bin, the changelog and the docs pages are in, no TypeScript sources', () => {
  const { dir, files, pkg } = packed;
  const bin = pkg.bin.fhirgate?.replace(/^\.\//, '');
  assert.equal(bin, 'bin/fhirgate.js');
  for (const name of [bin, 'README.md', 'docs/gateway.md', 'LICENSE', 'CHANGELOG.md', 'package.json', 'dist/index.js', 'dist/cli/index.js', 'dist/cli/index.d.ts']) {
    assert.ok(files.includes(name), `${name} is packed`);
  }
  assert.deepEqual(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')), [], 'no .ts sources are shipped');

  const maps = files.filter((f) => f.endsWith('.js.map'));
  assert.ok(maps.length > 100, `${maps.length} maps`);
  for (const mapPath of maps) {
    const map = JSON.parse(readFileSync(join(dir, mapPath), 'utf8')) as { file: string; sources: string[]; sourcesContent?: Array<string | null> };
    assert.ok(files.includes(join(dirname(mapPath), map.file)), `${mapPath}: its file is packed`);
    assert.equal(map.sourcesContent?.length, map.sources.length, `${mapPath}: sourcesContent for every source`);
    map.sources.forEach((source, i) => {
      // The source path, resolved from where the map was built, names the real file; its content is inline.
      const original = resolve(dir, dirname(mapPath), source);
      assert.ok(original.startsWith(join(ROOT, 'src')), `${mapPath}: ${source} is under src/`);
      assert.equal(map.sourcesContent?.[i], readFileSync(original, 'utf8'), `${mapPath}: the inline source is ${source}`);
    });
  }
});

test('the packed bin runs from the built dist/ with plain node (no TypeScript loader)', () => {
  const { dir } = packed;
  const help = spawnSync(process.execPath, [join(dir, 'bin', 'fhirgate.js'), '--help'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^Usage: fhirgate <command>/);
  const version = spawnSync(process.execPath, [join(dir, 'bin', 'fhirgate.js'), '--version'], { encoding: 'utf8' });
  assert.equal(version.stdout.trim(), (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
  const bad = spawnSync(process.execPath, [join(dir, 'bin', 'fhirgate.js'), 'serve', '--source', 'ehr=fhir://h.example.org/?client_id=a&client_secret=s&token_url=http://h.example.org/token'], { encoding: 'utf8' });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /^fhirgate serve: --source ehr: token_url must be https/);
});
