/**
 * The package as a user gets it: a fresh build of `src/` in a temporary copy (the repository's own dist/
 * is left alone), packed by `npm pack` into a tarball, and a scratch consumer project that installs that
 * tarball with npm. The consumer's dependencies (saxes) come from npm's cache when they are there, and
 * from the registry otherwise (`--prefer-offline`), so the test runs on a machine without a network once
 * `npm ci` has filled the cache, and in CI where only the registry is reachable.
 * @module
 */
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './code-tree.js';

/** The repository's root. */
export { ROOT };
/** The repository's TypeScript compiler. */
export const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** What `npm pack --json` says of the tarball. */
export interface PackInfo {
  /** The tarball's size in bytes (gzip). */
  readonly size: number;
  readonly unpackedSize: number;
  readonly files: readonly { readonly path: string; readonly size: number }[];
}

/** A packed fresh build. */
export interface PackedPackage {
  /** The temporary copy the tarball was packed from (its dist/ is the fresh build). */
  readonly dir: string;
  /** The tarball's absolute path. */
  readonly tarball: string;
  readonly info: PackInfo;
  /** Removes the copy and the tarball. */
  remove(): void;
}

/** Runs a command and fails the test with its output when it does not exit 0. */
export function run(command: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  assert.equal(result.status, 0, `${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result;
}

/** Builds `src/` afresh into a temporary copy of the package and packs it with `npm pack`. */
export function packFreshBuild(): PackedPackage {
  const dir = mkdtempSync(join(tmpdir(), 'fhirgate-pack-'));
  for (const name of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'bin', 'docs']) cpSync(join(ROOT, name), join(dir, name), { recursive: true });
  // As `npm run build`: the JavaScript without comments, then the declarations with their TSDoc.
  for (const config of ['tsconfig.build.json', 'tsconfig.types.json']) run(process.execPath, [TSC, '-p', join(ROOT, config), '--outDir', join(dir, 'dist')], ROOT);
  const [info] = JSON.parse(run(NPM, ['pack', '--json', '--ignore-scripts'], dir).stdout) as Array<PackInfo & { filename: string }>;
  const tarball = join(dir, info!.filename);
  return { dir, tarball, info: info!, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A scratch project (`"type": "module"`) with the tarball installed by npm, as a user would. */
export function installInConsumer(tarball: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'fhirgate-consumer-'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
  run(NPM, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', tarball], dir);
  assert.ok(readFileSync(join(dir, 'node_modules', 'fhirgate', 'package.json'), 'utf8').includes('"name": "fhirgate"'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
