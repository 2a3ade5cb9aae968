import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './code-tree.js';

/** The repository's root folder. */
export { ROOT };

/** A documentation page: its path from the repository root and its text. */
export interface DocPage {
  path: string;
  text: string;
}

/** The README and every `docs/*.md` page: the manual whose code blocks and links the tests hold to the code. */
export function docPages(): DocPage[] {
  const docs = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`);
  return ['README.md', ...docs].map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));
}

/** The fenced blocks of one language in `text`, in order. */
export function fencedBlocks(text: string, lang: string): string[] {
  return [...text.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}
