/**
 * One token request to an OAuth 2.0 token endpoint (client credentials grant), and its answer.
 * @module
 */
import { performance } from 'node:perf_hooks';
import { AuthTokenError, isFhirgateError } from '../errors.js';
import type { HTTPRequestOptions, HTTPResponse } from '../http/request-options.js';
import { authTokenChannel, publish } from '../http/diagnostics.js';
import { isJSONObject } from '../lib/json-object.js';
import { SecretRedactor } from '../lib/redact-secrets.js';
import type { Signer } from './key-ring.js';
import { signAssertion } from './sign-assertion.js';
import type { ClientSecretAuth, JWTAssertionAuth } from './source-config.js';

/** Sends a request (the gateway's pool, or `request()`). */
export type Send = (url: string, options: Omit<HTTPRequestOptions, 'agent'>) => Promise<HTTPResponse>;

/** A token endpoint's successful answer. */
export interface TokenAnswer {
  readonly accessToken: string;
  /** Seconds the token lives, when the endpoint said. */
  readonly expiresIn: number | undefined;
}

/** How to authenticate: the parsed flow, plus the key (and algorithm) that signs an assertion. */
export type Credentials = { readonly auth: ClientSecretAuth } | { readonly auth: JWTAssertionAuth; readonly key: Signer };

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/**
 * `application/x-www-form-urlencoded` encoding of one value, as RFC 6749 §2.3.1 asks for Basic
 * credentials (a space is `+`; `+`, `:` and `%` are escaped).
 */
export function formEncode(value: string): string {
  return new URLSearchParams([['', value]]).toString().slice(1);
}

/**
 * Posts a client credentials token request to `options.tokenUrl` (default: the connection string's
 * `token_url`) and reads the answer. Failures are `ERR_AUTH_TOKEN` with the HTTP status and the OAuth
 * `error`/`error_description`, capped, with every form of the secret or the assertion removed (an
 * endpoint that echoes the request would otherwise put them there). `options.source` names the source in
 * the `fhirgate:auth:token` message.
 */
export async function fetchToken(credentials: Credentials, send: Send, options: { timeoutMs: number; nowMs: number; tokenUrl?: string; source?: string | undefined }): Promise<TokenAnswer> {
  const { auth } = credentials;
  const tokenUrl = options.tokenUrl ?? auth.tokenUrl;
  if (tokenUrl === undefined) throw new TypeError('fetchToken: the token URL is unknown (discover it first)');
  const form = new URLSearchParams({ grant_type: 'client_credentials', scope: auth.scope });
  if (auth.audience !== undefined) form.set('audience', auth.audience);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  // Every credential this request carries, to be taken out of whatever the endpoint echoes back.
  let redact: SecretRedactor;
  if ('key' in credentials) {
    const assertion = signAssertion(credentials.key, { clientId: auth.clientId, tokenUrl, jku: credentials.auth.jku }, options.nowMs);
    form.set('client_assertion_type', ASSERTION_TYPE);
    form.set('client_assertion', assertion);
    redact = new SecretRedactor({ secrets: [assertion] });
  } else {
    const secret = credentials.auth.clientSecret;
    redact = new SecretRedactor({ secrets: [secret], basic: [[auth.clientId, secret]] });
    if (credentials.auth.method === 'client_secret_post') {
      form.set('client_id', auth.clientId);
      form.set('client_secret', secret);
    } else {
      headers.authorization = `Basic ${Buffer.from(`${formEncode(auth.clientId)}:${formEncode(secret)}`).toString('base64')}`;
    }
  }
  const url = new URL(tokenUrl);
  const where = `token request to ${url.origin}${url.pathname}`;
  const started = performance.now();
  const report = (facts: Record<string, unknown>): void =>
    publish(authTokenChannel, () => ({ origin: url.origin, path: url.pathname, clientId: auth.clientId, source: options.source, durationMs: performance.now() - started, ...facts }));
  let res: HTTPResponse;
  try {
    res = await send(tokenUrl, { method: 'POST', headers, body: form.toString(), timeoutMs: options.timeoutMs });
  } catch (cause) {
    const code = isFhirgateError(cause) ? cause.code : 'ERR_NETWORK';
    report({ error: code });
    const reason = systemCode(cause);
    throw new AuthTokenError(`${where} failed: ${code}${reason === undefined ? '' : ` (${reason})`}`, { cause });
  }
  const body = parseJSON(res.body);
  if (res.status < 200 || res.status > 299) {
    const oauthError = typeof body?.error === 'string' ? redact.text(body.error, 100) : undefined;
    const description = typeof body?.error_description === 'string' ? redact.text(body.error_description, 300) : undefined;
    report({ status: res.status, error: oauthError ?? 'ERR_AUTH_TOKEN', ...(description === undefined ? {} : { errorDescription: description }) });
    const detail = [oauthError, description].filter((s) => s !== undefined).join(': ');
    throw new AuthTokenError(`${where} failed: ${res.status}${detail === '' ? '' : ` ${detail}`}`, {
      status: res.status,
      ...(oauthError === undefined ? {} : { oauthError }),
      ...(description === undefined ? {} : { oauthErrorDescription: description }),
    });
  }
  const token = body?.access_token;
  const tokenType = body?.token_type;
  if (typeof token !== 'string' || !/^[\x21-\x7e]+$/.test(token) || (tokenType !== undefined && (typeof tokenType !== 'string' || tokenType.toLowerCase() !== 'bearer'))) {
    report({ status: res.status, error: 'ERR_AUTH_TOKEN' });
    throw new AuthTokenError(`${where}: the answer holds no bearer access_token`, { status: res.status });
  }
  const expiresIn = lifetime(body?.expires_in);
  report({ status: res.status, expiresIn });
  return { accessToken: token, expiresIn };
}

/**
 * `expires_in` in seconds: a positive number, or a string of one (some servers quote it); anything else
 * (absent, `true`, `[]`, `""`, `"soon"`) is unknown.
 */
function lifetime(value: unknown): number | undefined {
  const seconds = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+(?:\.\d+)?\s*$/.test(value) ? Number(value) : NaN;
  return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

/** The system error code under a transport error (`ECONNREFUSED`, `ENOTFOUND`, ...), when there is one. */
function systemCode(err: unknown): string | undefined {
  const code = ((err as { cause?: { code?: unknown } } | null)?.cause)?.code;
  return typeof code === 'string' && /^E[A-Z0-9_]+$/.test(code) ? code : undefined;
}

function parseJSON(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return isJSONObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
