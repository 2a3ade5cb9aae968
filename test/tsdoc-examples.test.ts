// The `@example` blocks of every public export's TSDoc (and of the public members of public classes and
// interfaces, and of each entry's `@module` TSDoc) type-check against the sources, like the README's
// blocks (readme.test.ts). An example that has no import of its own is written as if every public name
// were in scope (they are imported for it, each from the first entry that exports it), and may use the
// few stand-ins of PRELUDE (`gw`, `app`, `cds`, ...) instead of building them first. Internals carry no
// `@example` (the guard below finds any): one line on why they exist is enough.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from './support/code-tree.js';
import { exportedNames } from './support/exported-names.js';
import { misplacedExamples, publicExamples } from './support/tsdoc-examples.js';

const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** The package entries (`fhirgate`, `fhirgate/soap`, ...) and their source files, from the exports map. */
const ENTRIES = Object.entries((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, string | { types: string }> }).exports)
  .filter((e): e is [string, { types: string }] => typeof e[1] === 'object')
  .map(([subpath, target]) => ({ specifier: subpath === '.' ? 'fhirgate' : `fhirgate/${subpath.slice(2)}`, source: join(ROOT, target.types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts')) }));

/** The stand-ins an example may use without declaring them. */
const PRELUDE = `import type { AsyncFHIRGateway, Bundle, Patient, ServiceAPI } from 'fhirgate';
import type { CDSHooksService } from 'fhirgate/cds';
import type { Sandbox } from 'fhirgate/sandbox';
import type { NoteReaderService } from 'fhirgate/soap';
declare global {
  /** A gateway with the sources \`epic\` and \`cerner\`. */
  const gw: AsyncFHIRGateway;
  const app: ServiceAPI;
  const cds: CDSHooksService;
  const nr: NoteReaderService;
  const sandbox: Sandbox;
  const patient: Patient;
  const bundle: Bundle;
  /** Something caught. */
  const err: unknown;
  /** The user's own audit trail. */
  function audit(...what: unknown[]): void;
}
export {};
`;

/** Every public name as an import line per entry, each name from the first entry that exports it. */
function importAll(): string {
  const taken = new Set<string>();
  return ENTRIES.map(({ specifier, source }) => {
    const names = [...exportedNames(source)].filter(([name]) => !taken.has(name));
    for (const [name] of names) taken.add(name);
    return names.length === 0 ? '' : `import { ${names.map(([name, { typeOnly }]) => `${typeOnly ? 'type ' : ''}${name}`).join(', ')} } from '${specifier}';\n`;
  }).join('');
}

/** Type-checks `files` (name → code) in a folder inside the repository (so node_modules resolves), with the prelude. */
function typeCheck(files: ReadonlyMap<string, string>): { status: number | null; output: string } {
  const dir = mkdtempSync(join(ROOT, '.readme-check-'));
  try {
    writeFileSync(join(dir, 'prelude.ts'), PRELUDE);
    for (const [name, code] of files) writeFileSync(join(dir, name), code);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      extends: '../tsconfig.json',
      compilerOptions: {
        noEmit: true,
        noUnusedLocals: false,
        noUnusedParameters: false,
        paths: { fhirgate: ['../src/index.ts'], 'fhirgate/errors': ['../src/errors.ts'], 'fhirgate/*': ['../src/*/index.ts'] },
      },
      include: ['*.ts'],
      exclude: [],
    }));
    const result = spawnSync(process.execPath, [TSC, '-p', dir], { encoding: 'utf8' });
    return { status: result.status, output: result.stdout + result.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const asModule = (code: string, imports: string) => `${/^\s*import\s/m.test(code) ? '' : imports}${code}\nexport {};\n`;

test('every @example of a public export type-checks', () => {
  const examples = publicExamples(ROOT, ENTRIES.map((e) => e.source));
  assert.ok(examples.length >= 200, `found ${examples.length} examples`);
  const imports = importAll();
  const files = new Map(examples.map((e, i) => [`${e.name}-${i + 1}.ts`, `// ${e.file}: ${e.name}\n${asModule(e.code, imports)}`]));
  const { status, output } = typeCheck(files);
  assert.equal(status, 0, `TSDoc examples do not type-check:\n${output}`);
});

test('the check can fail: an example that misuses the API is refused', () => {
  const bad = asModule("const n: number = await gw.read('Patient', '1');", importAll());
  const { status, output } = typeCheck(new Map([['bad.ts', bad]]));
  assert.notEqual(status, 0);
  assert.match(output, /Patient/);
});

test('no @example on an internal: only public exports, their public members and the entries carry one', () => {
  const entries = ENTRIES.map((e) => e.source);
  assert.deepEqual(misplacedExamples(ROOT, entries), [], 'an internal gets one line on why it exists, not an @example');
});

test('the guard can fail: an @example on an internal declaration is found', () => {
  const dir = mkdtempSync(join(ROOT, '.tsdoc-guard-'));
  try {
    const src = join(dir, 'src');
    mkdirSync(join(src, 'room'), { recursive: true });
    const doc = (what: string, indent = '') => `${indent}/**\n${indent} * ${what}\n${indent} *\n${indent} * @example\n${indent} * \`\`\`ts\n${indent} * x;\n${indent} * \`\`\`\n${indent} */\n`;
    writeFileSync(join(src, 'index.ts'), `${doc('The entry.').replace(' */', ' * @module\n */')}export { Shown } from './room/shown.js';\n`);
    writeFileSync(join(src, 'room', 'shown.ts'), `${doc('Public.')}export class Shown {\n${doc('Public member.', '  ')}  run(): void {}\n${doc('Private member.', '  ')}  #hide(): void {}\n}\n`);
    writeFileSync(join(src, 'room', 'hidden.ts'), `${doc('Internal.')}export function hidden(): void {}\n`);
    assert.deepEqual(misplacedExamples(dir, [join(src, 'index.ts')]), ['src/room/hidden.ts:1 hidden', 'src/room/shown.ts:19 Shown > #hide(): void {}']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
