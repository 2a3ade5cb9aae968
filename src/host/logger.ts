/**
 * Structured logging through the replaceable {@link Logger} of `src/mount.ts`: one JSON object a line
 * for machines and pipes, or one readable line a record for a person at a terminal.
 * @module
 */
import { checkObject, keysOf, onlyKnownKeys } from '../lib/options.js';
import { printable } from '../lib/printable.js';
import type { Logger } from '../mount/index.js';
import { holdingLogger, writeLine } from './held-lines.js';
import { prettyLine } from './pretty-line.js';

/** Log levels, least severe first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

function ignore(): void {}

/** A stream a logger writes to; `isTTY` true means a terminal. */
export interface LogStream {
  write(line: string): unknown;
  readonly isTTY?: boolean;
}

/** A raw DEL or C1 control, or a C0 control as JSON escapes it (`\u001b`; line breaks and tabs are `\n`, `\t`). */
const CONTROL_IN_JSON = /[\x7f-\x9f]|\\u00[01][0-9a-f]/;

/** Options of {@link createJSONLogger}. */
export interface JSONLoggerOptions {
  /** The least severe level written. Default `'info'`. */
  level?: LogLevel;
  /** Where `debug` and `info` lines go. Default `process.stdout`. */
  stdout?: LogStream;
  /** Where `warn` and `error` lines go. Default `process.stderr`. */
  stderr?: LogStream;
}

/** How log records are written: `json` lines for machines, `pretty` lines for people. */
export type LogFormat = 'json' | 'pretty';

const FORMATS: readonly LogFormat[] = ['json', 'pretty'];

/** Options of {@link createLogger}. */
export interface LoggerOptions extends JSONLoggerOptions {
  /**
   * `'json'` or `'pretty'`. Default: the `LOG_FORMAT` environment variable when set, else `'pretty'` when
   * `stdout` is a terminal and `'json'` otherwise (pipes, files, log collectors).
   */
  format?: LogFormat;
  /** ANSI colours on the level of pretty lines. Default: when `stdout` is a terminal and `NO_COLOR` is not set. */
  color?: boolean;
}

/** The keys of {@link JSONLoggerOptions} and {@link LoggerOptions}; any other is refused with the nearest of these. */
export const LOGGER_OPTION_KEYS = Object.freeze({
  json: keysOf<JSONLoggerOptions>({ level: true, stdout: true, stderr: true }),
  logger: keysOf<LoggerOptions>({ level: true, stdout: true, stderr: true, format: true, color: true }),
});

/** Without a chosen format: `LOG_FORMAT`, else pretty for a person at a terminal and JSON for anything reading a pipe. */
function logFormatFor(stdout: LogStream, env: Readonly<Record<string, string | undefined>>): LogFormat {
  const chosen = env['LOG_FORMAT'];
  if (chosen !== undefined && chosen !== '') {
    if (!FORMATS.includes(chosen as LogFormat)) throw new RangeError(`LOG_FORMAT must be one of ${FORMATS.join(', ')}`);
    return chosen as LogFormat;
  }
  return stdout.isTTY === true ? 'pretty' : 'json';
}

/**
 * The host's default logger: JSON lines when piped, readable lines in a terminal (see
 * {@link LoggerOptions.format}); `debug`/`info` to stdout, `warn`/`error` to stderr.
 *
 * @example
 * ```ts
 * const log = createLogger({ format: 'pretty', level: 'debug' });
 * log.info('listening', { port: 8000 }); // 12:00:00.000 INFO  listening port=8000
 * ```
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  checkObject(options, 'options');
  onlyKnownKeys(options, LOGGER_OPTION_KEYS.logger, 'options');
  const out = options.stdout ?? process.stdout;
  if (options.format !== undefined && !FORMATS.includes(options.format)) throw new RangeError(`options.format must be one of ${FORMATS.join(', ')}`);
  const format = options.format ?? logFormatFor(out, process.env);
  if (format === 'json') return createJSONLogger({ level: options.level, stdout: options.stdout, stderr: options.stderr });
  const color = options.color ?? (out.isTTY === true && (process.env['NO_COLOR'] ?? '') === '');
  // A terminal obeys control characters (ESC sequences move the cursor, rewrite lines): every string is made printable.
  const safe = (fields: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, typeof v === 'string' ? printable(v, { multiline: true }) : v]));
  return leveled(options, (lvl, message, fields) => prettyLine(new Date(), lvl, printable(message), safe(fields), color));
}

/**
 * A logger that always writes `{"time","level","msg",...fields}` JSON lines, `debug`/`info` to stdout and
 * `warn`/`error` to stderr (what {@link createLogger} writes when not at a terminal).
 *
 * @example
 * ```ts
 * const log = createJSONLogger({ level: 'debug' });
 * log.info('listening', { port: 8000 }); // {"time":"…","level":"info","msg":"listening","port":8000}
 * ```
 */
export function createJSONLogger(options: JSONLoggerOptions = {}): Logger {
  checkObject(options, 'options');
  onlyKnownKeys(options, LOGGER_OPTION_KEYS.json, 'options');
  const clock = new MillisecondClock();
  return leveled(options, (lvl, message, fields) => {
    const time = clock.iso();
    const line = jsonLine(time, lvl, message, fields);
    // Upstream text may carry control characters: JSON leaves DEL and C1 ones as they are and escapes C0
    // ones (ESC included) only for a reader such as `jq -r` to restore. A line with any is written again,
    // each string made printable; the usual line costs one search.
    if (!CONTROL_IN_JSON.test(line)) return `${line}\n`;
    const record = { time, level: lvl, msg: message, ...fields };
    return `${JSON.stringify(record, (_key, value: unknown) => (typeof value === 'string' ? printable(value, { multiline: true }) : value))}\n`;
  });
}

/**
 * `{"time","level","msg",...fields}` as JSON, the same text as `JSON.stringify` of that record. The
 * usual fields (an access line) are serialised on their own and appended, without the record: the
 * spread copy was a fifth of an access line's cost. Fields that would not keep their place that way
 * (a `time`, `level`, `msg` or `toJSON` of their own, integer-like keys, which objects order first)
 * go through the record, as does a message that is not a string.
 */
function jsonLine(time: string, level: LogLevel, message: string, fields: Record<string, unknown>): string {
  if (typeof message !== 'string') return JSON.stringify({ time, level, msg: message, ...fields });
  const own = JSON.stringify(fields);
  const code = own.charCodeAt(2);
  const reordered = own.charCodeAt(0) !== 0x7b || (code >= 0x30 && code <= 0x39) || Object.hasOwn(fields, 'time') || Object.hasOwn(fields, 'level') || Object.hasOwn(fields, 'msg') || Object.hasOwn(fields, 'toJSON');
  if (reordered) return JSON.stringify({ time, level, msg: message, ...fields });
  const head = `{"time":"${time}","level":"${level}","msg":${JSON.stringify(message)}`;
  return own === '{}' ? `${head}}` : `${head},${own.slice(1)}`;
}

/** The current time as an ISO string, made once per millisecond (an access line per request asks for it thousands of times a second). */
class MillisecondClock {
  #ms = NaN;
  #text = '';
  iso(): string {
    const now = Date.now();
    if (now !== this.#ms) {
      this.#ms = now;
      this.#text = new Date(now).toISOString();
    }
    return this.#text;
  }
}

/** The level filter and the two streams, shared by both formats; `line` turns a record into text. */
function leveled(options: JSONLoggerOptions, line: (level: LogLevel, message: string, fields: Record<string, unknown>) => string): Logger {
  const level = options.level ?? 'info';
  if (!LEVELS.includes(level)) throw new RangeError(`options.level must be one of ${LEVELS.join(', ')}`);
  const min = LEVELS.indexOf(level);
  const out = options.stdout ?? process.stdout;
  const err = options.stderr ?? process.stderr;
  const write = (lvl: LogLevel) => {
    const urgent = lvl === 'warn' || lvl === 'error';
    const stream = urgent ? err : out;
    return (message: string, fields: Record<string, unknown> = {}) => writeLine(stream, line(lvl, message, fields), urgent);
  };
  // A level below the minimum gets a function that does nothing: no check, no line built.
  const at = (lvl: LogLevel): Logger['info'] => (LEVELS.indexOf(lvl) < min ? ignore : write(lvl));
  return holdingLogger({ debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') });
}

/** A logger that adds `bound` fields (such as `request_id`) to every line of `logger`. */
export function bindLogger(logger: Logger, bound: Record<string, unknown>): Logger {
  return {
    debug: (m, f) => logger.debug(m, { ...bound, ...f }),
    info: (m, f) => logger.info(m, { ...bound, ...f }),
    warn: (m, f) => logger.warn(m, { ...bound, ...f }),
    error: (m, f) => logger.error(m, { ...bound, ...f }),
  };
}
