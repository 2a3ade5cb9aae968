/**
 * Turning CDA narrative blocks (`section/text`) into plain text, and resolving `reference` pointers.
 * @module
 */
import { child, children } from '../xml-tree.js';
import type { XMLElement } from '../xml-tree.js';

const BLOCKS = new Set(['paragraph', 'tr', 'item', 'list', 'table', 'thead', 'tbody', 'caption', 'content_block']);
const CELLS = new Set(['td', 'th']);

function render(el: XMLElement, out: string[]): void {
  for (const c of el.children) {
    if (typeof c === 'string') out.push(c);
    else if (c.name === 'br') out.push('\n');
    else {
      render(c, out);
      if (BLOCKS.has(c.name)) out.push('\n');
      else if (CELLS.has(c.name)) out.push('\t');
    }
  }
}

/**
 * The plain text of a narrative element: `br` and block elements (paragraphs, rows, list items) end
 * lines, cells are separated by a tab turned to ` | `; runs of white space collapse; empty lines go.
 */
export function narrativeText(el: XMLElement | undefined): string {
  if (!el) return '';
  const out: string[] = [];
  render(el, out);
  return out
    .join('')
    .split('\n')
    .map((line) =>
      line
        .split('\t')
        .map((cell) => cell.replace(/\s+/g, ' ').trim())
        .filter(Boolean)
        .join(' | '),
    )
    .filter(Boolean)
    .join('\n');
}

/**
 * Indexes the narrative elements that carry an `ID` attribute (`<td ID="problem3name">CHF</td>`) by
 * that id, as plain text.
 */
export function indexNarrativeIds(root: XMLElement): Map<string, string> {
  const index = new Map<string, string>();
  const walk = (el: XMLElement): void => {
    const id = el.attributes.ID;
    if (id !== undefined && !index.has(id)) index.set(id, narrativeText(el));
    for (const c of children(el)) walk(c);
  };
  walk(root);
  return index;
}

/**
 * The narrative text an element's `reference` (or `originalText/reference`) points to, or the
 * element's own text when it has no reference.
 */
export function referencedText(el: XMLElement | undefined, ids: ReadonlyMap<string, string>): string | undefined {
  if (!el) return undefined;
  const ref = child(el, 'reference') ?? child(el, 'originalText', 'reference');
  const target = ref?.attributes.value;
  if (target?.startsWith('#')) return ids.get(target.slice(1)) || undefined;
  if (ref) return undefined;
  return narrativeText(child(el, 'originalText') ?? el) || undefined;
}
