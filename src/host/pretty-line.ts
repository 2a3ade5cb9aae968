/**
 * The readable form of a log record, for a person at a terminal: `time LEVEL message key=value …` on one
 * line. A multi-line string field (a stack) follows on indented lines.
 * @module
 */
import type { LogLevel } from './logger.js';

const COLORS: Readonly<Record<LogLevel, string>> = { debug: '\x1b[90m', info: '\x1b[36m', warn: '\x1b[33m', error: '\x1b[31m' };
const RESET = '\x1b[0m';
/** Field values that read as one word stay bare; anything else is quoted as JSON, so a line splits unambiguously. */
const BARE = /^[\w./:@+,=-]*$/;

function value(v: unknown): string {
  if (typeof v === 'string') return v !== '' && BARE.test(v) ? v : JSON.stringify(v);
  if (v === undefined) return 'undefined';
  return JSON.stringify(v) ?? String(v);
}

/** An access line (`request`) reads as `GET /route 200 3.1 ms`; its other fields follow. */
function headOf(message: string, fields: Record<string, unknown>): [string, Record<string, unknown>] {
  if (message !== 'request' || typeof fields['method'] !== 'string' || typeof fields['route'] !== 'string') return [message, fields];
  const { method, route, status, duration_ms: ms, ...rest } = fields;
  return [`${method} ${route} ${status === null ? '(client gone)' : String(status)}${typeof ms === 'number' ? ` ${ms} ms` : ''}`, rest];
}

/** One log record as a readable line (ending in a newline); `color` adds ANSI colours to the level. */
export function prettyLine(time: Date, level: LogLevel, message: string, fields: Record<string, unknown>, color: boolean): string {
  const [head, rest] = headOf(message, fields);
  const label = level.toUpperCase().padEnd(5);
  const parts = [time.toISOString().slice(11, 23), color ? `${COLORS[level]}${label}${RESET}` : label, head];
  const blocks: string[] = [];
  for (const [key, v] of Object.entries(rest)) {
    if (v === undefined) continue;
    if (typeof v === 'string' && v.includes('\n')) blocks.push(v.replace(/\n+$/, '').replace(/^/gm, '    '));
    else parts.push(`${key}=${value(v)}`);
  }
  return [parts.join(' '), ...blocks].join('\n') + '\n';
}
