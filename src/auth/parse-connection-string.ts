/**
 * `fhir://host[:port]/base/path/?client_id=…&…` → a {@link SourceConfig}.
 * @module
 */
import { FhirgateError } from '../errors.js';
import { nearestName } from '../lib/nearest-name.js';
import type { ClientSecretMethod, SourceAuth, SourceConfig, TLSFiles } from './source-config.js';

/** Every parameter a connection string may hold: the seven of the spec, then fhirgate's additions. */
const PARAMETERS = [
  'client_id',
  'token_url',
  'client_secret',
  'client_secret_path',
  'scope',
  'use_jwt_assertion',
  'audience',
  'key_id',
  'jku',
  'next_key_path',
  'next_key_id',
  'auth_method',
  'timeout',
  'allow_http',
  'token_origin',
  'ca_path',
  'cert_path',
  'key_path',
  'key_passphrase_path',
] as const;

type Parameter = (typeof PARAMETERS)[number];
type Params = Partial<Record<Parameter, string>>;

/**
 * The scope requested when the connection string names none.
 *
 * @example
 * ```ts
 * DEFAULT_SCOPE; // 'system/*.read system/*.write'
 * ```
 */
export const DEFAULT_SCOPE = 'system/*.read system/*.write';

const METHODS: readonly ClientSecretMethod[] = ['client_secret_basic', 'client_secret_post'];

function fail(message: string): never {
  throw new FhirgateError('ERR_CONNECTION_STRING', `invalid connection string: ${message}`);
}

/** A host name after the URL parser (lower case, IDN as punycode, IPv4 normalised): LDH labels, `_` tolerated. */
const HOST_NAME = /^(?:[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?\.?$/;

/**
 * Parses and checks a connection string. Values are percent-decoded with `decodeURIComponent`; a `+`
 * stays a `+` (write a space as `%20`). Every failure is `ERR_CONNECTION_STRING`, names the parameter
 * and never quotes a secret.
 *
 * @example
 * ```ts
 * const config = parseConnectionString(
 *   'fhir://fhir.example.org/r4/?client_id=app&client_secret=s3cr%26t&token_url=https://fhir.example.org/token',
 * );
 * config.baseUrl; // 'https://fhir.example.org/r4'
 * ```
 */
export function parseConnectionString(connectionString: string): SourceConfig {
  if (typeof connectionString !== 'string') throw new TypeError('connectionString must be a string');
  const match = /^fhir:\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?(#.*)?$/i.exec(connectionString.trim());
  if (match === null) fail('it must start with fhir://');
  const [, authority = '', path = '', query = '', fragment] = match;
  if (fragment !== undefined) fail('a fragment (#…) is not allowed');
  if (authority.includes('@')) fail('user information (user@host) is not allowed; use client_id and client_secret');
  if (authority === '') fail('the host is missing');
  const params = readParams(query);
  const allowHttp = flag(params, 'allow_http');
  const tlsFiles = readTLSFiles(params, allowHttp);
  let base: URL;
  try {
    base = new URL(`https://${authority}${path}`);
  } catch {
    fail('the host or base path is not valid');
  }
  // The URL parser lets through what no DNS name holds (`+`, `!`, `$`, `*`...): refuse it here, not at the first request.
  if (!HOST_NAME.test(base.hostname) && !base.hostname.startsWith('[')) fail('the host must be a DNS name (letters, digits, "-", "_", ".") or an IP address');
  // A source with TLS files is https, on loopback too (a private CA's server on this machine).
  if (allowHttp || (isLoopback(base.hostname) && tlsFiles === undefined)) base.protocol = 'http:';
  return {
    baseUrl: `${base.origin}${base.pathname.replace(/\/+$/, '')}`,
    origin: base.origin,
    auth: readAuth(params, allowHttp),
    timeoutMs: readTimeout(params.timeout),
    allowHttp,
    ...(tlsFiles === undefined ? {} : { tlsFiles }),
  };
}

/**
 * `config` on https, for a source given TLS settings through `addSource`'s `tls` option: a loopback
 * host is https then too, as with `ca_path`. Throws `ERR_CONNECTION_STRING` with `allow_http=true`.
 */
export function withHttpsBase(config: SourceConfig): SourceConfig {
  if (config.allowHttp) fail('TLS settings (options.tls) are for https sources: leave out allow_http=true');
  if (!config.baseUrl.startsWith('http:')) return config;
  const baseUrl = `https:${config.baseUrl.slice('http:'.length)}`;
  return { ...config, baseUrl, origin: new URL(baseUrl).origin };
}

/** `ca_path`, `cert_path`, `key_path`, `key_passphrase_path`: paths only, read when the source is added. */
function readTLSFiles(params: Params, allowHttp: boolean): TLSFiles | undefined {
  const { ca_path: caPath, cert_path: certPath, key_path: keyPath, key_passphrase_path: passphrasePath } = params;
  if (caPath === undefined && certPath === undefined && keyPath === undefined && passphrasePath === undefined) return undefined;
  if (allowHttp) fail('ca_path, cert_path, key_path and key_passphrase_path are for https sources: leave out allow_http=true');
  if ((certPath === undefined) !== (keyPath === undefined)) fail('a client certificate needs both cert_path and key_path');
  if (passphrasePath !== undefined && keyPath === undefined) fail('key_passphrase_path needs key_path');
  return { caPath, certPath, keyPath, passphrasePath };
}

function readParams(query: string): Params {
  const params: Params = {};
  query.split('&').forEach((piece, index) => {
    if (piece === '') return;
    const eq = piece.indexOf('=');
    const rawName = eq === -1 ? piece : piece.slice(0, eq);
    const name = decoded(rawName);
    // Text after the "?" may be the tail of a secret that held "&": it is quoted only when it is a known name or a near miss of one.
    if (name === undefined || !(PARAMETERS as readonly string[]).includes(name)) fail(unknownParameter(name, index + 1));
    const key = name as Parameter;
    const value = decoded(eq === -1 ? '' : piece.slice(eq + 1));
    if (value === undefined) fail(`the value of ${key} has a malformed %-escape (write a literal % as %25)`);
    if (params[key] !== undefined) fail(`parameter ${key} is given twice`);
    if (value === '') fail(`parameter ${key} is empty`);
    params[key] = value;
  });
  return params;
}

function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** Names the parameter only when it is an obvious typo of a known one; anything else may be a secret's tail. */
function unknownParameter(name: string | undefined, position: number): string {
  const near = name === undefined ? undefined : nearestName(name, PARAMETERS);
  const which = near === undefined ? `an unknown parameter at position ${position} of the query` : `unknown parameter ${JSON.stringify(name)} (did you mean ${near}?)`;
  return `${which}; allowed: ${PARAMETERS.join(', ')}. A value that holds & or % must be percent-encoded (\${VAR} in a config file or --source is encoded for you)`;
}

function readAuth(params: Params, allowHttp: boolean): SourceAuth {
  const { client_id: clientId, token_url: tokenUrl, client_secret: secret, client_secret_path: keyPath } = params;
  const jwt = flag(params, 'use_jwt_assertion');
  if (secret !== undefined && keyPath !== undefined) fail('give client_secret or client_secret_path, not both');
  if (keyPath !== undefined && !jwt) fail('client_secret_path needs use_jwt_assertion=true');
  if (jwt && keyPath === undefined) fail('use_jwt_assertion=true needs client_secret_path (the private key file)');
  const oauthOnly = ['client_secret', 'client_secret_path', 'scope', 'audience', 'key_id', 'jku', 'next_key_path', 'next_key_id', 'auth_method', 'use_jwt_assertion', 'token_origin'] as const;
  if (clientId === undefined && tokenUrl === undefined) {
    const stray = oauthOnly.find((p) => params[p] !== undefined);
    if (stray !== undefined) fail(`${stray} needs client_id`);
    return undefined;
  }
  if (clientId === undefined) fail('client_id is missing (token_url is set)');
  // Without token_url the token endpoint is discovered from the source's SMART configuration.
  if (tokenUrl !== undefined && params.token_origin !== undefined) fail('token_origin is for a discovered token endpoint: with token_url, leave it out');
  const common = {
    clientId,
    tokenUrl: tokenUrl === undefined ? undefined : readTokenUrl(tokenUrl, allowHttp),
    tokenOrigin: readTokenOrigin(params.token_origin, allowHttp),
    scope: params.scope ?? DEFAULT_SCOPE,
    audience: params.audience,
  };
  if (params.next_key_id !== undefined && params.next_key_path === undefined) fail('next_key_id needs next_key_path');
  if (jwt) {
    if (params.auth_method !== undefined) fail('auth_method applies to client_secret only');
    const { key_id: keyId, next_key_path: nextKeyPath, next_key_id: nextKeyId } = params;
    return { kind: 'jwt_assertion', ...common, keyPath: keyPath as string, keyId, jku: readJku(params.jku), nextKeyPath, nextKeyId };
  }
  if (secret === undefined) fail('client_secret is missing (or use client_secret_path with use_jwt_assertion=true)');
  for (const p of ['key_id', 'jku', 'next_key_path'] as const) if (params[p] !== undefined) fail(`${p} needs use_jwt_assertion=true`);
  const method = params.auth_method ?? 'client_secret_basic';
  if (!(METHODS as readonly string[]).includes(method)) fail(`auth_method must be one of ${METHODS.join(', ')}`);
  return { kind: 'client_secret', ...common, clientSecret: secret, method: method as ClientSecretMethod };
}

function readTokenUrl(value: string, allowHttp: boolean): string {
  const url = absolute(value, 'token_url');
  if (isAllowedEndpoint(url, allowHttp)) return url.href;
  return fail('token_url must be https (http only for loopback hosts or with allow_http=true)');
}

/** `token_origin=https://auth.example.org[:port]`: an origin only (no path, query or fragment). */
function readTokenOrigin(value: string | undefined, allowHttp: boolean): string | undefined {
  if (value === undefined) return undefined;
  const url = absolute(value, 'token_origin');
  if (!isAllowedEndpoint(url, allowHttp)) fail('token_origin must be https (http only for loopback hosts or with allow_http=true)');
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') fail('token_origin must be an origin only, such as https://auth.example.org (no path)');
  return url.origin;
}

/**
 * The rule for every URL credentials are sent to (`token_url`, a discovered token endpoint): https, or
 * http for a loopback host or with `allow_http=true`.
 */
export function isAllowedEndpoint(url: URL, allowHttp: boolean): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && (allowHttp || isLoopback(url.hostname)));
}

function readJku(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const url = absolute(value, 'jku');
  // An authorization server fetches the JWKS from jku: https only, loopback included (SMART Backend Services).
  if (url.protocol !== 'https:') fail('jku must be an https URL');
  return url.href;
}

function absolute(value: string, name: string): URL {
  try {
    const url = new URL(value);
    if (url.username !== '' || url.password !== '') fail(`${name} must not hold user information`);
    return url;
  } catch (err) {
    if (err instanceof FhirgateError) throw err;
    return fail(`${name} must be an absolute URL`);
  }
}

function flag(params: Params, name: 'use_jwt_assertion' | 'allow_http'): boolean {
  const value = params[name]?.toLowerCase();
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  return fail(`${name} must be true or false`);
}

function readTimeout(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !(seconds > 0)) fail('timeout must be a positive number of seconds');
  return seconds * 1000;
}

/** True for hosts that never leave the machine: `localhost` (and `*.localhost`), `127.0.0.0/8`, `[::1]`. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '[::1]';
}
