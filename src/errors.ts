/**
 * Every error fhirgate throws or rejects with carries a stable `code`. Switch on `code`, not on the
 * class: codes are the public contract, class names may grow.
 *
 * Misuse of an API (an option of the wrong type or out of range) throws a plain `TypeError` or
 * `RangeError` at once instead; those name the option.
 *
 * @example
 * ```ts
 * import { isFhirgateError } from 'fhirgate/errors';
 * try {
 *   await gw.read('Patient', '123', 'epic');
 * } catch (err) {
 *   if (isFhirgateError(err) && err.code === 'ERR_FHIR_HTTP' && err.status === 404) return null;
 *   throw err;
 * }
 * ```
 * @module
 */

/** What each code means, in one line. The keys are the union {@link ErrorCode}. */
export const ERROR_CODES = Object.freeze({
  ERR_CONNECTION_STRING: 'a fhir:// connection string is malformed or its parameters do not fit together',
  ERR_AUTH_TOKEN: 'the OAuth 2.0 token endpoint refused or failed to answer a token request',
  ERR_AUTH_KEY: 'a private key for a JWT assertion could not be read, parsed or used',
  ERR_FHIR_HTTP: 'a FHIR server answered with a non-2xx status',
  ERR_FHIR_RESPONSE: 'a FHIR server answered 2xx with a body that is not the expected JSON resource',
  ERR_RESPONSE_TOO_LARGE: 'an upstream answer was larger than the configured limit',
  ERR_UNKNOWN_SOURCE: 'no source is registered under that name',
  ERR_NO_SOURCES: 'the gateway has no sources registered',
  ERR_INVALID_RESOURCE: 'a resource is missing a required field or is not a FHIR resource',
  ERR_INVALID_RESOURCE_TYPE: 'not an R4B resource type name',
  ERR_INVALID_ID: 'not a FHIR id ([A-Za-z0-9-.]{1,64})',
  ERR_INVALID_SEARCH: 'search parameters that cannot be sent',
  ERR_TIMEOUT: 'an operation took longer than its time-out',
  ERR_ABORTED: 'an operation was aborted through its AbortSignal',
  ERR_NETWORK: 'a connection was refused, reset or closed before a complete answer',
  ERR_CROSS_ORIGIN: 'a URL points to another origin than the source it came from',
  ERR_CLOSED: 'the object was closed',
  ERR_STORE_UNAVAILABLE: 'a shared store (e.g. Redis) failed or did not answer within its time-out',
  ERR_CONFLICT: 'an update kept losing to concurrent updates (HTTP 412)',
  ERR_DEADLOCK: 'a synchronous call would block the thread that must answer it',
  ERR_PAGINATION: 'a search result cannot be paged further (repeated or foreign next link)',
  ERR_DUPLICATE_NAME: 'a name that must be unique is already taken',
  ERR_NOT_FOUND: 'nothing is registered for that route, type or id',
  ERR_HANDLER: 'a user handler threw or returned something unusable',
  ERR_BAD_REQUEST: 'an incoming request is malformed',
  ERR_BODY_TOO_LARGE: 'an incoming request body is larger than the limit',
  ERR_UNSUPPORTED_MEDIA_TYPE: 'an incoming request has the wrong Content-Type',
  ERR_UNAUTHORIZED: 'an incoming request lacks valid credentials',
  ERR_JWT: 'a JSON Web Token is malformed, badly signed, expired or otherwise not acceptable',
  ERR_CDS_REQUEST: 'a CDS Hooks request body is invalid',
  ERR_CDS_CARD: 'a CDS Hooks handler returned an invalid card or response',
  ERR_CDS_PREFETCH: 'prefetch data a CDS service needs could not be obtained',
  ERR_SOAP_CLIENT: 'a SOAP request is malformed (SOAP Client fault)',
  ERR_SOAP_SERVER: 'a SOAP handler failed (SOAP Server fault)',
  ERR_CDA: 'a CDA document is malformed or lacks what was asked of it',
  ERR_DISCOVERY: "a source's SMART configuration could not be read or does not fit how the gateway authenticates",
  ERR_BULK_RESPONSE: 'a Bulk Data server answered a kick-off or status request, or sent a manifest, that the Bulk Data IG does not allow',
  ERR_BULK_FAILED: 'a Bulk Data export job failed on the server (its status request answered an error)',
  ERR_BULK_FILE: 'a Bulk Data output file was cut short or has a line that is not a FHIR resource',
  ERR_CLUSTER: 'cluster workers kept dying, or a new worker failed before it listened',
  ERR_CONFIG: 'a fhirgate config file or command-line setting is invalid (the message names its path)',
} as const);

/** The union of every error code fhirgate uses. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Options accepted by every fhirgate error. */
export interface FhirgateErrorOptions {
  /** The underlying error, kept as `error.cause`. */
  cause?: unknown;
  /** An HTTP status tied to the failure (upstream status, or the status to answer with). */
  status?: number;
}

/**
 * The base class of every fhirgate error.
 *
 * @example
 * ```ts
 * throw new FhirgateError('ERR_UNKNOWN_SOURCE', 'unknown source "epc"; registered: epic, cerner');
 * ```
 */
export class FhirgateError extends Error {
  /** The stable code; see {@link ERROR_CODES}. */
  readonly code: ErrorCode;
  /** An HTTP status tied to the failure, when there is one. */
  readonly status: number | undefined;

  constructor(code: ErrorCode, message: string, options: FhirgateErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options.status;
  }

  override get name(): string {
    return this.constructor.name;
  }
}

/** Options of {@link FHIRHTTPError}. */
export interface FHIRHTTPErrorOptions extends FhirgateErrorOptions {
  status: number;
  /** The OperationOutcome the server sent, when it sent one. */
  operationOutcome?: unknown;
  /** The gateway operation (`read`, `search`, ...). */
  operation?: string;
  /** The resource reference or type the operation was about (`Patient/123`). */
  reference?: string;
}

/**
 * A FHIR server answered with a non-2xx status (`ERR_FHIR_HTTP`). Carries the status and the server's
 * OperationOutcome.
 *
 * @example
 * ```ts
 * try { await gw.read('Patient', 'nope') } catch (e) {
 *   if (e instanceof FHIRHTTPError && e.status === 404) console.log(e.operationOutcome);
 * }
 * ```
 */
export class FHIRHTTPError extends FhirgateError {
  declare readonly status: number;
  readonly operationOutcome: unknown;
  readonly operation: string | undefined;
  readonly reference: string | undefined;

  constructor(message: string, options: FHIRHTTPErrorOptions) {
    super('ERR_FHIR_HTTP', message, options);
    this.operationOutcome = options.operationOutcome;
    this.operation = options.operation;
    this.reference = options.reference;
  }
}

/** Options of {@link AuthTokenError}. */
export interface AuthTokenErrorOptions extends FhirgateErrorOptions {
  /** The OAuth 2.0 `error` value (`invalid_client`, ...), when the endpoint sent one. */
  oauthError?: string;
  /** The OAuth 2.0 `error_description`, when the endpoint sent one. */
  oauthErrorDescription?: string;
}

/**
 * A token endpoint refused or failed (`ERR_AUTH_TOKEN`). Never holds the secret or the assertion.
 *
 * @example
 * ```ts
 * catch (e) { if (e instanceof AuthTokenError) console.log(e.status, e.oauthError) }
 * ```
 */
export class AuthTokenError extends FhirgateError {
  readonly oauthError: string | undefined;
  readonly oauthErrorDescription: string | undefined;

  constructor(message: string, options: AuthTokenErrorOptions = {}) {
    super('ERR_AUTH_TOKEN', message, options);
    this.oauthError = options.oauthError;
    this.oauthErrorDescription = options.oauthErrorDescription;
  }
}

/**
 * True when `value` is a fhirgate error, optionally with the given code. Works across module copies
 * and across the sync gateway's thread bridge, where `instanceof` may not.
 *
 * @example
 * ```ts
 * if (isFhirgateError(err, 'ERR_TIMEOUT')) retryLater();
 * ```
 */
export function isFhirgateError(value: unknown, code?: ErrorCode): value is FhirgateError {
  if (!(value instanceof Error)) return false;
  const c = (value as { code?: unknown }).code;
  if (typeof c !== 'string' || !Object.hasOwn(ERROR_CODES, c)) return false;
  return code === undefined || c === code;
}

/**
 * The one table from error codes to the HTTP status fhirgate answers with. Codes of upstream failures
 * (a network error, a token endpoint's refusal, an unusable answer, a time-out) map to 502/504 whatever
 * the upstream status they carry; see {@link httpStatusOf} for the whole rule.
 *
 * @example
 * ```ts
 * HTTP_STATUS_BY_CODE.ERR_BODY_TOO_LARGE; // 413
 * ```
 */
export const HTTP_STATUS_BY_CODE: Readonly<Partial<Record<ErrorCode, number>>> = Object.freeze({
  ERR_BAD_REQUEST: 400,
  ERR_UNAUTHORIZED: 401,
  ERR_NOT_FOUND: 404,
  ERR_BODY_TOO_LARGE: 413,
  ERR_UNSUPPORTED_MEDIA_TYPE: 415,
  ERR_NETWORK: 502,
  ERR_FHIR_RESPONSE: 502,
  ERR_RESPONSE_TOO_LARGE: 502,
  ERR_CROSS_ORIGIN: 502,
  ERR_PAGINATION: 502,
  ERR_AUTH_TOKEN: 502,
  ERR_DISCOVERY: 502,
  ERR_BULK_RESPONSE: 502,
  ERR_BULK_FAILED: 502,
  ERR_BULK_FILE: 502,
  ERR_CLOSED: 503,
  ERR_STORE_UNAVAILABLE: 503,
  ERR_TIMEOUT: 504,
});

/** Codes whose `status`, when they carry one, is an upstream server's and not the status to answer. */
const UPSTREAM_FAILURES: ReadonlySet<string> = new Set(['ERR_NETWORK', 'ERR_FHIR_RESPONSE', 'ERR_RESPONSE_TOO_LARGE', 'ERR_CROSS_ORIGIN', 'ERR_PAGINATION', 'ERR_AUTH_TOKEN', 'ERR_DISCOVERY', 'ERR_BULK_RESPONSE', 'ERR_BULK_FAILED', 'ERR_BULK_FILE', 'ERR_TIMEOUT']);

/**
 * The HTTP status to answer for an error: for `ERR_FHIR_HTTP` an upstream 404 or 410 passes through
 * and any other upstream status is a 502; an upstream failure is its code's status in
 * {@link HTTP_STATUS_BY_CODE}; else the error's own `status` when it is 400–599; else its code's status
 * in the table; else (any other error) 500.
 *
 * @example
 * ```ts
 * httpStatusOf(new FhirgateError('ERR_BODY_TOO_LARGE', 'too big')); // 413
 * httpStatusOf(new FHIRHTTPError('read Patient/1 failed: 404 Not Found', { status: 404 })); // 404
 * httpStatusOf(new Error('boom')); // 500
 * ```
 */
export function httpStatusOf(error: unknown): number {
  if (!isFhirgateError(error)) return 500;
  const { code, status } = error;
  if (code === 'ERR_FHIR_HTTP') return status === 404 || status === 410 ? status : 502;
  if (!UPSTREAM_FAILURES.has(code) && typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599) return status;
  return HTTP_STATUS_BY_CODE[code] ?? 500;
}

/**
 * @deprecated Renamed {@link FHIRHTTPError} (one acronym style: all capitals); this alias goes in the next release.
 * @example
 * ```ts
 * FHIRHTTPError === FHIRHttpError; // true: the old name is the new one
 * ```
 */
export const FHIRHttpError = FHIRHTTPError;
/** @deprecated Renamed {@link FHIRHTTPError}. */
export type FHIRHttpError = FHIRHTTPError;
/** @deprecated Renamed {@link FHIRHTTPErrorOptions}. */
export type FHIRHttpErrorOptions = FHIRHTTPErrorOptions;
