/**
 * The `@example` blocks of the TSDoc of every public export (the top-level declarations the package
 * entries export, found through `exportedNames`), so that a test can type-check them like the README's.
 * @module
 */
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
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

/** Every ```ts block under `@example` in the TSDoc of the public exports of `entries` (source files). */
export function publicExamples(root: string, entries: readonly string[]): TSDocExample[] {
  const examples: TSDocExample[] = [];
  // Each name is looked up in the graph of an entry that exports it (two rooms may declare one name).
  const where = new Map<string, string>();
  for (const entry of entries) {
    const declared = declarations(entry);
    for (const name of exportedNames(entry).keys()) if (!where.has(name) && declared.has(name)) where.set(name, declared.get(name)!);
  }
  for (const name of [...where.keys()].sort()) {
    const file = where.get(name);
    if (file === undefined || file.includes('/generated/')) continue;
    const doc = docOf(readFileSync(file, 'utf8'), name);
    const example = doc?.split(/^@example\b/m).slice(1).join('\n') ?? '';
    for (const m of example.matchAll(/```ts\n([\s\S]*?)```/g)) examples.push({ name, file: relative(root, file), code: m[1]! });
  }
  return examples;
}
