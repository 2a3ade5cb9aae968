/**
 * Structured logging: one JSON object a line, through the replaceable {@link Logger} of `src/mount.ts`.
 * @module
 */
import { printable } from '../lib/printable.js';
import type { Logger } from '../mount/index.js';

/** Log levels, least severe first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

function ignore(): void {}

/** A raw DEL or C1 control, or a C0 control as JSON escapes it (`\u001b`; line breaks and tabs are `\n`, `\t`). */
const CONTROL_IN_JSON = /[\x7f-\x9f]|\\u00[01][0-9a-f]/;

/** Options of {@link createJSONLogger}. */
export interface JSONLoggerOptions {
  /** The least severe level written. Default `'info'`. */
  level?: LogLevel;
  /** Where `debug` and `info` lines go. Default `process.stdout`. */
  stdout?: { write(line: string): unknown };
  /** Where `warn` and `error` lines go. Default `process.stderr`. */
  stderr?: { write(line: string): unknown };
}

/**
 * The default logger: writes `{"time","level","msg",...fields}` lines, `debug`/`info` to stdout and
 * `warn`/`error` to stderr.
 *
 * @example
 * ```ts
 * const log = createJSONLogger({ level: 'debug' });
 * log.info('listening', { port: 8000 }); // {"time":"…","level":"info","msg":"listening","port":8000}
 * ```
 */
export function createJSONLogger(options: JSONLoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  if (!LEVELS.includes(level)) throw new RangeError(`options.level must be one of ${LEVELS.join(', ')}`);
  const min = LEVELS.indexOf(level);
  const out = options.stdout ?? process.stdout;
  const err = options.stderr ?? process.stderr;
  const write = (lvl: LogLevel) => (message: string, fields: Record<string, unknown> = {}) => {
    const record = { time: new Date().toISOString(), level: lvl, msg: message, ...fields };
    let line = JSON.stringify(record);
    // Upstream text may carry control characters: JSON leaves DEL and C1 ones as they are and escapes C0
    // ones (ESC included) only for a reader such as `jq -r` to restore. A line with any is written again,
    // each string made printable; the usual line costs one search.
    if (CONTROL_IN_JSON.test(line)) line = JSON.stringify(record, (_key, value: unknown) => (typeof value === 'string' ? printable(value, { multiline: true }) : value));
    (lvl === 'warn' || lvl === 'error' ? err : out).write(`${line}\n`);
  };
  // A level below the minimum gets a function that does nothing: no check, no line built.
  const at = (lvl: LogLevel): Logger['info'] => (LEVELS.indexOf(lvl) < min ? ignore : write(lvl));
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/**
 * A logger that adds `bound` fields (such as `request_id`) to every line of `logger`.
 *
 * @example
 * ```ts
 * const log = bindLogger(appLogger, { request_id: 'abc' });
 * log.warn('slow upstream', { ms: 900 }); // request_id is on the line
 * ```
 */
export function bindLogger(logger: Logger, bound: Record<string, unknown>): Logger {
  return {
    debug: (m, f) => logger.debug(m, { ...bound, ...f }),
    info: (m, f) => logger.info(m, { ...bound, ...f }),
    warn: (m, f) => logger.warn(m, { ...bound, ...f }),
    error: (m, f) => logger.error(m, { ...bound, ...f }),
  };
}
