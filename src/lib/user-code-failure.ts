/**
 * Where the user's own code failed: a handler module's file and line, found in an error's stack, for the
 * log (never for a client).
 * @module
 */
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';

/** fhirgate's own code (the sources in a clone, the build in the package): frames there are not the user's. */
const OWN = [fileURLToPath(new URL('../', import.meta.url)), fileURLToPath(new URL('../../dist/', import.meta.url))];

/** The file:line:column of a stack line (`at fn (…)`, `at …`), as a path; undefined for native and eval frames. */
function locationOf(line: string): string | undefined {
  const m = /^\s*at (?:.*? \()?(.+?):(\d+):(\d+)\)?$/.exec(line);
  if (m === null) return undefined;
  const file = m[1]!.startsWith('file://') ? fileURLToPath(m[1]!) : m[1]!;
  return isAbsolute(file) ? `${file}:${m[2]}:${m[3]}` : undefined; // node:internal/…, native, <anonymous>
}

/**
 * The first frame of `err`'s stack in the user's code (not fhirgate's, not Node's, not a dependency's):
 * `/srv/app/handlers.mjs:12:9`, or undefined when there is none.
 */
export function userCodeFrame(err: unknown): string | undefined {
  const stack = err instanceof Error && typeof err.stack === 'string' ? err.stack : '';
  for (const line of stack.split('\n').slice(1)) {
    const at = locationOf(line);
    if (at !== undefined && !at.includes('/node_modules/') && !OWN.some((own) => at.startsWith(own))) return at;
  }
  return undefined;
}

/** The part of a logger this needs (the mount room's `Logger` fits). */
interface FailureLog {
  debug(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/**
 * Logs a handler's failure at `level` with `at`, the file and line in the user's code where it failed, and
 * at `debug` one more line with the error's stack. Neither ever goes to a client.
 */
export function logUserCodeFailure(log: FailureLog, level: 'warn' | 'error', message: string, fields: Record<string, unknown>, err: unknown): void {
  const at = userCodeFrame(err);
  log[level](message, at === undefined ? fields : { ...fields, at });
  if (err instanceof Error && typeof err.stack === 'string') log.debug(`${message}: stack`, { ...fields, stack: err.stack });
}
