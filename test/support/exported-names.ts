/**
 * Every name a package entry exports, types included, read from the sources (the runtime `import()`
 * sees values only): follows `export … from`, `export * from` and `export type * from` to the files
 * that declare them.
 * @module
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const DECLARATION = /^export\s+(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?(?:const|let|var|function\*?|class|interface|type|enum|namespace)\s+([A-Za-z_$][\w$]*)/gm;
const LIST = /^export\s+(type\s+)?\{([^}]*)\}\s*(?:from\s+'([^']+)')?/gm;
const STAR = /^export\s+(?:type\s+)?\*\s+from\s+'([^']+)'/gm;

/** The names `file` exports, each with whether it is a type only. */
export function exportedNames(file: string, seen = new Set<string>()): Map<string, { typeOnly: boolean }> {
  const names = new Map<string, { typeOnly: boolean }>();
  if (seen.has(file)) return names;
  seen.add(file);
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const target = (spec: string) => resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
  for (const m of text.matchAll(DECLARATION)) {
    names.set(m[1]!, { typeOnly: /^export\s+(?:declare\s+)?(?:interface|type)\s/.test(m[0]) });
  }
  for (const m of text.matchAll(LIST)) {
    for (const item of m[2]!.split(',').map((s) => s.trim()).filter(Boolean)) {
      const [, typeWord, name, alias] = /^(type\s+)?([\w$]+)(?:\s+as\s+([\w$]+))?$/.exec(item) ?? [];
      if (name === undefined) throw new Error(`${file}: cannot read the export "${item}"`);
      const typeOnly = m[1] !== undefined || typeWord !== undefined || (m[3] !== undefined && exportedNames(target(m[3]), new Set()).get(name)?.typeOnly === true);
      names.set(alias ?? name, { typeOnly });
    }
  }
  for (const m of text.matchAll(STAR)) {
    const typeOnly = /^export\s+type\s/.test(m[0]);
    for (const [name, entry] of exportedNames(target(m[1]!), seen)) names.set(name, { typeOnly: typeOnly || entry.typeOnly });
  }
  return names;
}
