import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { ROOT, docPages } from './support/doc-pages.js';

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-');
}

/** The anchors a Markdown text's headings give (fenced code is not a heading). */
function anchors(text: string): Set<string> {
  const found = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6} (.*)$/.exec(line);
    if (m) found.add(slug(m[1]!));
  }
  return found;
}

/** The links of `text` (the page at `path`, from the root) that lead nowhere: a missing file, a missing heading, or a path out of the repository. */
function brokenLinks(path: string, text: string, read: (file: string) => string | undefined): string[] {
  const broken: string[] = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target!)) continue; // https:, mailto:
    const [file, anchor] = target!.split('#') as [string, string | undefined];
    const full = file === '' ? join(ROOT, path) : resolve(ROOT, dirname(path), file);
    const inside = relative(ROOT, full);
    if (inside.startsWith(`..${sep}`) || inside === '..') { broken.push(`${path}: ${target} leaves the repository`); continue; }
    const body = read(full);
    if (body === undefined) { broken.push(`${path}: ${target} names no file`); continue; }
    if (anchor !== undefined && full.endsWith('.md') && !anchors(body).has(anchor)) broken.push(`${path}: ${target} names no heading`);
  }
  return broken;
}

const readRepo = (file: string): string | undefined => (existsSync(file) ? (file.endsWith('.md') ? readFileSync(file, 'utf8') : '') : undefined);

test('every link of the README and of docs/*.md leads to a file of the repository and, with #, to a heading of it', () => {
  assert.deepEqual(docPages().flatMap(({ path, text }) => brokenLinks(path, text, readRepo)), []);
});

test('the link check sees a missing page, a missing heading and a path out of the repository', () => {
  const text = '[a](docs/gone.md) [b](docs/errors.md#no-such-heading) [c](../outside.md) [d](docs/errors.md#errors) [e](#here)\n\n## Here\n';
  assert.deepEqual(brokenLinks('README.md', text, (file) => (file.endsWith('errors.md') ? '# Errors\n' : file.endsWith('README.md') ? text : undefined)), [
    'README.md: docs/gone.md names no file',
    'README.md: docs/errors.md#no-such-heading names no heading',
    'README.md: ../outside.md leaves the repository',
  ]);
  assert.equal(slug('NoteReader (SOAP 1.1 / CDA)'), 'notereader-soap-11--cda');
  assert.equal(slug('The `fhirgate` command'), 'the-fhirgate-command');
});
