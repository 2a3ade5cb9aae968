/**
 * Errors across the sync gateway's thread bridge. A structured clone keeps neither an error's class nor
 * its own fields, so errors travel as a plain {@link SerializedError} and are rebuilt on the calling
 * thread with the same class, `code`, message, status, OperationOutcome, OAuth fields and cause chain.
 * The worker's stack trace never travels: the rebuilt error has the calling thread's stack.
 * @module
 */
import { AuthTokenError, ERROR_CODES, FHIRHTTPError, FhirgateError } from '../../errors.js';
import type { ErrorCode } from '../../errors.js';

/** The classes an error is rebuilt as; anything else becomes a plain `Error` keeping its `name`. */
type ErrorKind = 'FhirgateError' | 'FHIRHTTPError' | 'AuthTokenError' | 'TypeError' | 'RangeError' | 'Error';

/** An error as plain, structured-clone-safe data. */
export interface SerializedError {
  kind: ErrorKind;
  name: string;
  message: string;
  code?: string;
  status?: number;
  operationOutcome?: unknown;
  operation?: string;
  reference?: string;
  oauthError?: string;
  oauthErrorDescription?: string;
  cause?: SerializedError;
}

/** How deep a cause chain is followed; a longer (or circular) chain is cut there. */
const MAX_CAUSE_DEPTH = 4;

function kindOf(err: Error): ErrorKind {
  if (err instanceof FHIRHTTPError) return 'FHIRHTTPError';
  if (err instanceof AuthTokenError) return 'AuthTokenError';
  if (err instanceof FhirgateError) return 'FhirgateError';
  if (err instanceof TypeError) return 'TypeError';
  if (err instanceof RangeError) return 'RangeError';
  return 'Error';
}

/** Copies `value` as JSON so that nothing uncloneable (a function, a class instance) reaches postMessage. */
function jsonCopy(value: unknown): unknown {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Turns anything thrown into a {@link SerializedError}. A thrown non-error becomes an `Error` whose
 * message is its string form.
 */
export function serializeError(thrown: unknown, depth = 0): SerializedError {
  if (!(thrown instanceof Error)) return { kind: 'Error', name: 'Error', message: String(thrown) };
  const out: SerializedError = { kind: kindOf(thrown), name: thrown.name, message: thrown.message };
  const fields = thrown as Error & Partial<Record<keyof SerializedError, unknown>>;
  if (typeof fields.code === 'string') out.code = fields.code;
  if (typeof fields.status === 'number') out.status = fields.status;
  if (fields.operationOutcome !== undefined) out.operationOutcome = jsonCopy(fields.operationOutcome);
  for (const key of ['operation', 'reference', 'oauthError', 'oauthErrorDescription'] as const) {
    const value = fields[key];
    if (typeof value === 'string') out[key] = value;
  }
  if (thrown.cause !== undefined && depth < MAX_CAUSE_DEPTH) out.cause = serializeError(thrown.cause, depth + 1);
  return out;
}

function codeOf(data: SerializedError): ErrorCode {
  return data.code !== undefined && Object.hasOwn(ERROR_CODES, data.code) ? (data.code as ErrorCode) : 'ERR_HANDLER';
}

/** Rebuilds the error a {@link SerializedError} describes, on the calling thread. */
export function deserializeError(data: SerializedError): Error {
  const cause = data.cause === undefined ? undefined : deserializeError(data.cause);
  const base = { cause, ...(data.status === undefined ? {} : { status: data.status }) };
  switch (data.kind) {
    case 'FHIRHTTPError':
      return new FHIRHTTPError(data.message, {
        ...base,
        status: data.status ?? 0,
        operationOutcome: data.operationOutcome,
        ...(data.operation === undefined ? {} : { operation: data.operation }),
        ...(data.reference === undefined ? {} : { reference: data.reference }),
      });
    case 'AuthTokenError':
      return new AuthTokenError(data.message, {
        ...base,
        ...(data.oauthError === undefined ? {} : { oauthError: data.oauthError }),
        ...(data.oauthErrorDescription === undefined ? {} : { oauthErrorDescription: data.oauthErrorDescription }),
      });
    case 'FhirgateError':
      return new FhirgateError(codeOf(data), data.message, base);
    case 'TypeError':
      return new TypeError(data.message, cause === undefined ? undefined : { cause });
    case 'RangeError':
      return new RangeError(data.message, cause === undefined ? undefined : { cause });
    default:
      return plainError(data, cause);
  }
}

/** A plain `Error` that keeps the original `name` (`AbortError`, `TimeoutError`, ...) and `code`. */
function plainError(data: SerializedError, cause: Error | undefined): Error {
  const err = new Error(data.message, cause === undefined ? undefined : { cause });
  if (data.name !== 'Error') Object.defineProperty(err, 'name', { value: data.name, configurable: true, writable: true });
  if (data.code !== undefined) Object.defineProperty(err, 'code', { value: data.code, configurable: true, writable: true, enumerable: true });
  return err;
}
