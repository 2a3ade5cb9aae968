/**
 * Where the tests' code runs from. `npm test` runs the tests compiled to JavaScript in `.build/` (the same
 * tree as the repository: `.build/src/`, `.build/test/`), with plain Node, because loading TypeScript
 * through tsx costs each of the suite's hundreds of processes about half a second of CPU; a test file
 * run by hand with `node --import tsx --test test/….test.ts` runs from the sources. Everything a test
 * starts (a child process, a worker, a script it writes) uses the same form as the test itself.
 * @module
 */
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { siblingModuleUrl } from '../../src/lib/worker-bridge/bridge.js';

/** The folder holding the running `src/` and `test/`: the repository, or `.build/` in it. */
const TREE = resolve(fileURLToPath(new URL('../../', import.meta.url)));

/** The running code's extension: `.ts` under tsx, `.js` compiled. */
const EXTENSION = extname(fileURLToPath(import.meta.url));

/** The repository's root (docs, fixtures, package.json, the TypeScript sources): the tree itself, or the folder holding `.build/`. */
export const ROOT = EXTENSION === '.ts' ? TREE : dirname(TREE);

/** What `node` needs before a script of the running form: tsx for TypeScript sources, nothing for compiled code. */
export const LOADER: readonly string[] = EXTENSION === '.ts' ? ['--import', import.meta.resolve('tsx')] : [];

/** The running form of the repository file `<path>` (without extension, e.g. `examples/demo`), as a file path. */
export function treeFile(path: string): string {
  return join(TREE, path + EXTENSION);
}

/** The running form of the module `src/<path>` (`path` without extension), as a file URL string for an `import`. */
export function srcModule(path: string): string {
  return pathToFileURL(treeFile(`src/${path}`)).href;
}

/** The path of a test helper script beside `importMetaUrl` (`relative` without extension), in the running form, to spawn. */
export function helperScript(importMetaUrl: string, relative: string): string {
  return fileURLToPath(siblingModuleUrl(importMetaUrl, relative));
}
