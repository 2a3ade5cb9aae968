/**
 * Text from outside (an upstream server's header, an OperationOutcome's diagnostics) made safe to print
 * on a terminal or write to a log.
 * @module
 */

/**
 * Escape sequences whole, so that their parameters do not stay behind as text: CSI (`ESC [`, or C1
 * U+009B) with its parameters and final byte; OSC, DCS, SOS, PM and APC strings (`ESC ]`, `ESC P`,
 * `ESC X`, `ESC ^`, `ESC _`, or their C1 forms) up to BEL or the string terminator; any other `ESC` with
 * its intermediate and final bytes; a lone `ESC`.
 */
const ESCAPE_SEQUENCE = /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[ -/]*[0-~]?/g;
/** C0 controls but tab and line feed, DEL, C1 controls. */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
/** Anything to remove or replace (line breaks included): a quick test before any replacement. */
const UNSAFE = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/;

/** How {@link printable} treats line breaks. */
export interface PrintableOptions {
  /** Keep line feeds (a carriage return still goes). Default `false`: each line break becomes a space. */
  multiline?: boolean;
}

/**
 * `text` without terminal escape sequences and control characters: C0 controls other than tab (and line
 * feed, when `multiline`), DEL, and C1 controls (U+0080–U+009F). Without `multiline`, a line break
 * becomes a space, so that the text cannot start a line of its own. Text that holds none comes back as it is.
 */
export function printable(text: string, options: PrintableOptions = {}): string {
  if (!UNSAFE.test(text)) return text;
  const lines = options.multiline === true ? text.replace(/\r\n?/g, '\n') : text.replace(/\r\n|[\r\n]/g, ' ');
  return lines.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, '');
}
