/**
 * The one test logger: it keeps every line, so a test can assert what was (and was not) logged.
 * @module
 */
import type { Logger } from '../../src/mount/index.js';

/** One captured log line; `fields` is `{}` when the caller gave none. */
export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields: Record<string, unknown>;
}

/** A {@link Logger} that also holds the lines written to it. */
export type CapturingLogger = Logger & { readonly lines: LogLine[] };

/**
 * A logger that keeps every line in `lines`, in order, and hands each to `onLine` if given.
 *
 * @example
 * ```ts
 * const log = captureLogger();
 * const app = createServiceAPI({ logger: log });
 * // ... later
 * assert.ok(log.lines.some((l) => l.level === 'error'));
 * ```
 */
export function captureLogger(onLine?: (line: LogLine) => void): CapturingLogger {
  const lines: LogLine[] = [];
  const at =
    (level: LogLine['level']) =>
    (message: string, fields: Record<string, unknown> = {}): void => {
      const line = { level, message, fields };
      lines.push(line);
      onLine?.(line);
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
