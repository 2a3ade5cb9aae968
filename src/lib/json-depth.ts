/**
 * How deeply a JSON text nests, found without parsing it.
 * @module
 */

/**
 * The deepest nesting of arrays and objects accepted in a resource, from an upstream or from a caller: far
 * beyond any real one (a Questionnaire ten items deep nests about 25 levels), far below what breaks a
 * thread-to-thread clone or a recursive walk.
 */
export const MAX_RESOURCE_DEPTH = 512;

/**
 * Whether `text` (JSON) nests arrays and objects more than `max` levels deep. A text of `max` characters
 * or fewer, or holding at most `max` opening brackets (counted by native searches, those in strings
 * too), cannot nest deeper and is not walked; otherwise strings are skipped with native searches. Values nested
 * thousands deep parse, but then break what walks them recursively: a structured clone to another
 * thread, `JSON.stringify`, a redaction.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  // The count first: a searchset page of 4 KB took 16 µs to walk and 3 µs to count (Node 20).
  if (text.length <= max || openingsAtMost(text, max)) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = stringEnd(text, i);
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** True when `text` holds at most `max` of `{` and `[` together. */
function openingsAtMost(text: string, max: number): boolean {
  let count = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1)) if (++count > max) return false;
  }
  return true;
}

/** The index of the quote that closes the string opened at `open` (or the text's last index). */
function stringEnd(text: string, open: number): number {
  let quote = text.indexOf('"', open + 1);
  while (quote !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length - 1;
}
