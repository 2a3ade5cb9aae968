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
 * async function findPatient(id: string) {
 *   try {
 *     return await gw.read('Patient', id, 'epic');
 *   } catch (err) {
 *     if (isFhirgateError(err) && err.code === 'ERR_FHIR_HTTP' && err.status === 404) return null;
 *     throw err;
 *   }
 * }
 * ```
 * @module
 */

/**
 * What one error code means and how fhirgate answers it over HTTP: the one record every table of codes
 * derives from ({@link HTTP_STATUS_BY_CODE}, {@link httpStatusOf}, the gateway handlers' replies).
 */
export interface ErrorCodeInfo {
  /** What the code means, in one line. */
  readonly meaning: string;
  /** The HTTP status fhirgate answers with for this code when the error carries no 4xx/5xx status of its own (500 for a failure of fhirgate or of user code). */
  readonly status: number;
  /** True for failures of an upstream server, or of reaching one: a `status` such an error carries is the upstream's, never the answer's. */
  readonly upstream: boolean;
}

const info = (meaning: string, status = 500, upstream = false): ErrorCodeInfo => Object.freeze({ meaning, status, upstream });
const upstream = (meaning: string, status = 502): ErrorCodeInfo => info(meaning, status, true);

/**
 * One record per error code: its meaning, its HTTP status and whether it is an upstream failure. The
 * keys are the union {@link ErrorCode}.
 *
 * @example
 * ```ts
 * import { ERROR_CODES } from 'fhirgate/errors';
 * ERROR_CODES.ERR_TIMEOUT; // { meaning: 'an operation took longer than its time-out', status: 504, upstream: true }
 * ```
 */
export const ERROR_CODES = Object.freeze({
  ERR_CONNECTION_STRING: info('a fhir:// connection string is malformed or its parameters do not fit together'),
  ERR_AUTH_TOKEN: upstream('the OAuth 2.0 token endpoint refused or failed to answer a token request'),
  ERR_AUTH_KEY: info('a private key for a JWT assertion could not be read, parsed or used'),
  ERR_FHIR_HTTP: upstream('a FHIR server answered with a non-2xx status (an upstream 404 or 410 passes through, any other is a 502)'),
  ERR_FHIR_RESPONSE: upstream('a FHIR server answered 2xx with a body that is not the expected JSON resource'),
  ERR_CREDENTIALS_ECHOED: upstream('a FHIR server sent back, in any encoding, the credentials the gateway sent it: its answer was withheld'),
  ERR_RESPONSE_TOO_LARGE: upstream('an upstream answer was larger than the configured limit'),
  ERR_UNKNOWN_SOURCE: info('no source is registered under that name'),
  ERR_NO_SOURCES: info('the gateway has no sources registered'),
  ERR_INVALID_RESOURCE: info('a resource is missing a required field or is not a FHIR resource'),
  ERR_INVALID_RESOURCE_TYPE: info('not an R4B resource type name'),
  ERR_INVALID_ID: info('not a FHIR id ([A-Za-z0-9-.]{1,64})'),
  ERR_INVALID_SEARCH: info('search parameters that cannot be sent'),
  ERR_TIMEOUT: upstream('an operation took longer than its time-out', 504),
  ERR_ABORTED: info('an operation was aborted through its AbortSignal'),
  ERR_NETWORK: upstream('a connection was refused, reset or closed before a complete answer'),
  ERR_PROXY: upstream('the outbound HTTP proxy could not be reached, refused to open a tunnel (CONNECT) or answered what is not HTTP'),
  ERR_PROXY_AUTH: upstream('the outbound HTTP proxy asked for credentials (407) or refused those of the proxy URL'),
  ERR_TLS: upstream("a TLS connection to an upstream failed: its certificate is not trusted or does not name it, or it refused the client certificate"),
  ERR_TLS_FILE: info('a CA, client certificate or key given for TLS cannot be read or used (wrong PEM, a key that does not fit, a wrong passphrase)'),
  ERR_CROSS_ORIGIN: upstream('a URL points to another origin than the source it came from'),
  ERR_CLOSED: info('the object was closed', 503),
  ERR_STORE_UNAVAILABLE: info('a shared store (e.g. Redis) failed or did not answer within its time-out', 503),
  ERR_CONFLICT: info('an update kept losing to concurrent updates (HTTP 412)'),
  ERR_DEADLOCK: info('a synchronous call would block the thread that must answer it'),
  ERR_PAGINATION: upstream('a search result cannot be paged further (repeated or foreign next link)'),
  ERR_DUPLICATE_NAME: info('a name that must be unique (a source, a mounted component, a CDS service id, a SOAP operation) is already taken'),
  ERR_DUPLICATE_ROUTE: info('a route with that method and path is already registered'),
  ERR_UNKNOWN_DEPENDENCY: info('a custom route injects a gateway that is not registered'),
  ERR_NOT_FOUND: info('nothing is registered for that path, type or id', 404),
  ERR_METHOD_NOT_ALLOWED: info('the path exists but does not answer that HTTP method (the Allow header lists those it does)', 405),
  ERR_HANDLER: info('a user handler threw or returned something unusable'),
  ERR_BAD_REQUEST: info('an incoming request is malformed', 400),
  ERR_BODY_TOO_LARGE: info('an incoming request body is larger than the limit', 413),
  ERR_UNSUPPORTED_MEDIA_TYPE: info('an incoming request has the wrong Content-Type', 415),
  ERR_UNAUTHORIZED: info('an incoming request lacks valid credentials', 401),
  ERR_JWT: info('a JSON Web Token is malformed, badly signed, expired or otherwise not acceptable'),
  ERR_CDS_REQUEST: info('a CDS Hooks request body is invalid', 400),
  ERR_CDS_CARD: info('a CDS Hooks handler returned an invalid card or response'),
  ERR_CDS_PREFETCH: info('prefetch data a CDS service needs could not be obtained', 412),
  ERR_SOAP_CLIENT: info('a SOAP request is malformed (SOAP Client fault; SOAP 1.1 answers every fault with 500)'),
  ERR_SOAP_SERVER: info('a SOAP handler failed (SOAP Server fault)'),
  ERR_CDA: info('a CDA document is malformed or lacks what was asked of it'),
  ERR_DISCOVERY: upstream("a source's SMART configuration could not be read or does not fit how the gateway authenticates"),
  ERR_BULK_RESPONSE: upstream('a Bulk Data server answered a kick-off or status request, or sent a manifest, that the Bulk Data IG does not allow'),
  ERR_BULK_FAILED: upstream('a Bulk Data export job failed on the server (its status request answered an error)'),
  ERR_BULK_FILE: upstream('a Bulk Data output file was cut short or has a line that is not a FHIR resource'),
  ERR_CLUSTER: info('cluster workers kept dying, or a new worker failed before it listened'),
  ERR_CONFIG: info('a fhirgate config file or command-line setting is invalid (the message names its path)'),
  ERR_PAGE_TOKEN: info('a page token is malformed, tampered with, expired or belongs to another caller', 400),
} as const satisfies Record<`ERR_${string}`, ErrorCodeInfo>);

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
 * try { await gw.read('Patient', '123', 'epic') } catch (e) {
 *   if (e instanceof AuthTokenError) console.log(e.status, e.oauthError); // 401 'invalid_client'
 * }
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
 * if (isFhirgateError(err, 'ERR_TIMEOUT')) console.log('try again later:', err.message);
 * ```
 */
export function isFhirgateError(value: unknown, code?: ErrorCode): value is FhirgateError {
  if (!(value instanceof Error)) return false;
  const c = (value as { code?: unknown }).code;
  if (typeof c !== 'string' || !Object.hasOwn(ERROR_CODES, c)) return false;
  return code === undefined || c === code;
}

/**
 * Every code's HTTP status, read from {@link ERROR_CODES}. Codes of upstream failures (a network error, a
 * token endpoint's refusal, an unusable answer, a time-out) map to 502/504 whatever the upstream status
 * they carry; see {@link httpStatusOf} for the whole rule.
 *
 * @example
 * ```ts
 * import { HTTP_STATUS_BY_CODE } from 'fhirgate/errors';
 * HTTP_STATUS_BY_CODE.ERR_BODY_TOO_LARGE; // 413
 * ```
 */
export const HTTP_STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = Object.freeze(
  Object.fromEntries(Object.entries(ERROR_CODES).map(([code, { status }]) => [code, status])) as Record<ErrorCode, number>,
);

/**
 * The HTTP status to answer for an error: for `ERR_FHIR_HTTP` an upstream 404 or 410 passes through
 * and any other upstream status is a 502; an upstream failure ({@link ErrorCodeInfo.upstream}) is its
 * code's status; else the error's own `status` when it is 400–599; else its code's status; else (an
 * error that is not fhirgate's) 500.
 *
 * @example
 * ```ts
 * import { FHIRHTTPError, FhirgateError, httpStatusOf } from 'fhirgate/errors';
 * httpStatusOf(new FhirgateError('ERR_BODY_TOO_LARGE', 'too big')); // 413
 * httpStatusOf(new FHIRHTTPError('read Patient/1 failed: 404 Not Found', { status: 404 })); // 404
 * httpStatusOf(new Error('boom')); // 500
 * ```
 */
export function httpStatusOf(error: unknown): number {
  if (!isFhirgateError(error)) return 500;
  const { code, status } = error;
  if (code === 'ERR_FHIR_HTTP') return status === 404 || status === 410 ? status : 502;
  if (!ERROR_CODES[code].upstream && typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599) return status;
  return ERROR_CODES[code].status;
}
