/**
 * The `@example` blocks of the TSDoc of every public export (the top-level declarations the package
 * entries export, found through `exportedNames`), of their public members and of the entries' `@module`
 * TSDoc, so that a test can type-check them like the README's; and every `@example` anywhere else.
 * @module
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { exportedNames } from './exported-names.js';

/** One ```ts block of an `@example`. */
export interface TSDocExample {
  /** The exported name whose TSDoc holds it. */
  readonly name: string;
  /** The file that declares the name, relative to the repository. */
  readonly file: string;
  readonly code: string;
}

const DECLARED = /^export\s+(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:const|function\*?|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm;

/** Where each name reachable from `entry` is declared: the first file that declares it with `export`. */
function declarations(entry: string, found = new Map<string, string>(), seen = new Set<string>()): Map<string, string> {
  if (seen.has(entry)) return found;
  seen.add(entry);
  const text = readFileSync(entry, 'utf8');
  for (const m of text.matchAll(DECLARED)) if (!found.has(m[1]!)) found.set(m[1]!, entry);
  for (const m of text.matchAll(/from\s+'(\.[^']+)'/g)) declarations(resolve(dirname(entry), m[1]!.replace(/\.js$/, '.ts')), found, seen);
  return found;
}

/** The TSDoc comment right before the declaration of `name` in `text`, without its `*` margins. */
function docOf(text: string, name: string): string | undefined {
  const declaration = new RegExp(`/\\*\\*((?:(?!\\*/)[\\s\\S])*?)\\*/\\s*(?://[^\\n]*\\n\\s*)*export\\s+(?:declare\\s+)?(?:abstract\\s+)?(?:async\\s+)?(?:const|function\\*?|class|interface|type|enum)\\s+${name.replaceAll('$', '\\$')}\\b`);
  const doc = declaration.exec(text)?.[1];
  return doc?.split('\n').map((line) => line.replace(/^\s*\* ?/, '')).join('\n');
}

/** Each public name with the file that declares it; each is looked up in the graph of an entry that exports it (two rooms may declare one name). */
function publicDeclarations(entries: readonly string[]): Map<string, string> {
  const where = new Map<string, string>();
  for (const entry of entries) {
    const declared = declarations(entry);
    for (const name of exportedNames(entry).keys()) if (!where.has(name) && declared.has(name)) where.set(name, declared.get(name)!);
  }
  return where;
}

/** The TSDoc (without margins) of each public member (two spaces in, not `private`/`protected`/`#`) of the exported class or interface `name` in `text`. */
function memberDocs(text: string, name: string): [string, string][] {
  const start = new RegExp(`^export\\s+(?:declare\\s+)?(?:abstract\\s+)?(?:class|interface)\\s+${name.replaceAll('$', '\\$')}\\b.*$`, 'm').exec(text);
  if (start === null) return [];
  const body = text.slice(start.index, text.indexOf('\n}', start.index));
  return [...body.matchAll(/^ {2}\/\*\*((?:(?!\*\/)[\s\S])*?)\*\/\s*\n {2}(?!private\b|protected\b|(?:static\s+|readonly\s+|async\s+|get\s+|set\s+)*#)(?:static\s+|readonly\s+|async\s+|get\s+|set\s+)*([^\s(<:?]+)/gm)]
    .map((m) => [m[2]!, m[1]!.split('\n').map((line) => line.replace(/^\s*\* ?/, '')).join('\n')]);
}

/** Every ```ts block under `@example` in the TSDoc of the public exports of `entries` (source files), of their public members, and of the entries' own `@module` TSDoc. */
export function publicExamples(root: string, entries: readonly string[]): TSDocExample[] {
  const examples: TSDocExample[] = [];
  const where = publicDeclarations(entries);
  for (const name of [...where.keys()].sort()) {
    const file = where.get(name);
    if (file === undefined || file.includes('/generated/')) continue;
    const text = readFileSync(file, 'utf8');
    for (const [label, doc] of [[name, docOf(text, name)] as const, ...memberDocs(text, name).map(([member, d]) => [`${name}.${member}`, d] as const)]) {
      const example = doc?.split(/^@example\b/m).slice(1).join('\n') ?? '';
      for (const m of example.matchAll(/```ts\n([\s\S]*?)```/g)) examples.push({ name: label, file: relative(root, file), code: m[1]! });
    }
  }
  for (const entry of entries) {
    const doc = /^\/\*\*((?:(?!\*\/)[\s\S])*?^\s*\* @module\b[\s\S]*?)\*\//m.exec(readFileSync(entry, 'utf8'))?.[1];
    const example = doc?.split('\n').map((line) => line.replace(/^\s*\* ?/, '')).join('\n').split(/^@example\b/m).slice(1).join('\n') ?? '';
    for (const m of example.matchAll(/```ts\n([\s\S]*?)```/g)) examples.push({ name: '@module', file: relative(root, entry), code: m[1]! });
  }
  return examples;
}

const TOP_LEVEL = /^(?:export\s+)?(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?(?:const|let|var|function\*?|class|interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)/;
const TYPE_OR_CLASS = /^export\s+(?:declare\s+)?(?:abstract\s+)?(?:class|interface)\s+([A-Za-z_$][\w$]*)/;

/** The `.ts` files under `dir`, without the generated FHIR types. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'generated' ? [] : sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Every TSDoc `@example` under `src/` that is not on a public export, as `file:line what`: allowed are the
 * TSDoc of a public export (as `publicExamples` finds them), of a public member (two spaces in, not
 * `private`/`protected`/`#`) of an exported public class or interface, and the `@module` TSDoc of an entry.
 */
export function misplacedExamples(root: string, entries: readonly string[]): string[] {
  const where = publicDeclarations(entries);
  const isPublic = (name: string, file: string) => where.get(name) === file;
  const found: string[] = [];
  for (const file of sources(join(root, 'src'))) {
    const text = readFileSync(file, 'utf8');
    if (!text.includes('@example')) continue;
    for (const m of text.matchAll(/^( *)\/\*\*[\s\S]*?\*\//gm)) {
      if (!/^\s*\* @example\b/m.test(m[0])) continue;
      const line = text.slice(0, m.index).split('\n').length;
      const at = `${relative(root, file)}:${line}`;
      const next = text.slice(m.index + m[0].length).replace(/^(?:\s*\/\/[^\n]*)*\s*/, '').split('\n')[0]!;
      if (/^\s*\* @module\b/m.test(m[0])) {
        if (!entries.includes(file)) found.push(`${at} @module of a file that is no package entry`);
      } else if (m[1] === '') {
        const name = TOP_LEVEL.exec(next)?.[1];
        if (name === undefined || !/^export\s/.test(next) || !isPublic(name, file)) found.push(`${at} ${name ?? next.trim()}`);
      } else {
        const before = text.slice(0, m.index).split('\n').reverse().find((l) => /^\S/.test(l) && !/^[}*/]/.test(l) && !/^\s*\/\//.test(l)) ?? '';
        const owner = TYPE_OR_CLASS.exec(before)?.[1];
        const member = m[1] === '  ' && !/^(?:private|protected)\b|^(?:static\s+|readonly\s+|async\s+|get\s+|set\s+)*#/.test(next);
        if (owner === undefined || !member || !isPublic(owner, file)) found.push(`${at} ${owner ?? before.slice(0, 40)} > ${next.trim().slice(0, 40)}`);
      }
    }
  }
  return found;
}
