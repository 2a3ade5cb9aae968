/**
 * Plain character data: the text in element content that an XML parser hands on unchanged and that
 * needs no check but its characters. A megabyte of base64 in a `Document` element is such text; finding
 * where it ends with native string searches costs a fraction of a parser's per-character loop.
 * @module
 */

/**
 * The printable ASCII characters other than `&` (a reference starts), `<` (markup starts) and `]` (it
 * may start the forbidden `]]>`), plus tab and line feed. Everything else — other control characters,
 * carriage return (line ends are normalized), DEL and anything past ASCII (XML 1.1 restricts some, and
 * line ends differ by version) — goes to the parser.
 */
const NOT_PLAIN = /[^\t\n -%'-;=-\\^-~]/g;
/** The characters of ASCII text that are not plain, each found with one native `indexOf`. */
const ASCII_NOT_PLAIN: readonly string[] = [
  ...Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)).filter((c) => c !== '\t' && c !== '\n'),
  '&', '<', ']', '\x7f',
];

/**
 * The index of the first character in `text` from `from` that is not plain character data, or
 * `text.length` when there is none.
 */
export function plainEnd(text: string, from: number): number {
  const lt = text.indexOf('<', from);
  const run = text.slice(from, lt === -1 ? text.length : lt);
  if (Buffer.byteLength(run, 'utf8') !== run.length) {
    NOT_PLAIN.lastIndex = from;
    return NOT_PLAIN.exec(text)?.index ?? text.length;
  }
  let end = run.length;
  for (const c of ASCII_NOT_PLAIN) {
    const at = run.indexOf(c);
    if (at !== -1 && at < end) end = at;
  }
  return from + end;
}

/**
 * Where a parser fed `text` from `from` may stop so that plain text of at least `min` characters (or
 * reaching the end of `text`) follows: just after a `>`. Only a place to look: whether that `>` ended a
 * tag (and not an attribute value, a comment or text) is for the parser to tell. `text.length` when there
 * is no such place.
 */
export function stopBeforePlain(text: string, from: number, min: number): number {
  let gt = text.indexOf('>', from);
  while (gt !== -1) {
    const start = gt + 1;
    const lt = text.indexOf('<', start);
    if (lt === -1 || lt - start >= min) {
      const end = plainEnd(text, start);
      if (end === text.length || end - start >= min) return start;
    }
    gt = text.indexOf('>', lt === -1 ? start : lt);
  }
  return text.length;
}

/**
 * Lines and column after `text`, counted as `saxes` counts them (ASCII text: one column a character),
 * from `line` and `column`.
 */
export function advance(at: { line: number; column: number }, text: string): { line: number; column: number } {
  let { line, column } = at;
  let start = 0;
  for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
    line += 1;
    column = 0;
    start = nl + 1;
  }
  return { line, column: column + text.length - start };
}
