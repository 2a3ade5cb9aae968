/**
 * SMART discovery: where a source's token endpoint is and what it accepts, read from
 * `[base]/.well-known/smart-configuration` (SMART App Launch 2.0), or, when a server has none, from
 * the `oauth-uris` extension of its CapabilityStatement (`[base]/metadata`).
 * @module
 */
import { FhirgateError, isFhirgateError } from '../errors.js';
import type { HTTPResponse } from '../http/request-options.js';
import { isJSONObject } from '../lib/json-object.js';
import type { Send } from './fetch-token.js';

/** The extension of `CapabilityStatement.rest.security` that names the OAuth endpoints (SMART 1.0). */
export const OAUTH_URIS_EXTENSION = 'http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris';

/**
 * What discovery found. The lists are `undefined` when the server did not say (always so for the
 * CapabilityStatement fallback).
 */
export interface SmartConfiguration {
  /** The URL the token endpoint was read from. */
  readonly documentUrl: string;
  /** `token_endpoint` as the server wrote it (checked later: see `checkDiscovered`). */
  readonly tokenEndpoint: string;
  /** `token_endpoint_auth_methods_supported`. */
  readonly authMethods: readonly string[] | undefined;
  /** `token_endpoint_auth_signing_alg_values_supported`. */
  readonly signingAlgs: readonly string[] | undefined;
}

/**
 * Reads the SMART configuration of the FHIR server at `baseUrl` (no trailing slash). A server without
 * one (any non-2xx answer) is asked for its CapabilityStatement instead. Every failure is
 * `ERR_DISCOVERY` naming the URL and the reason.
 */
export async function discoverSmart(baseUrl: string, send: Send, options: { timeoutMs: number }): Promise<SmartConfiguration> {
  const documentUrl = `${baseUrl}/.well-known/smart-configuration`;
  const res = await get(send, documentUrl, 'application/json', options.timeoutMs);
  if (res.status >= 200 && res.status <= 299) return readConfiguration(documentUrl, res);
  const metadataUrl = `${baseUrl}/metadata`;
  const absent = `no SMART configuration at ${documentUrl} (${res.status})`;
  const meta = await get(send, metadataUrl, 'application/fhir+json', options.timeoutMs, absent);
  if (meta.status < 200 || meta.status > 299) fail(`${absent}, and ${metadataUrl} answered ${meta.status}`);
  const tokenEndpoint = oauthUrisToken(jsonObject(meta));
  if (tokenEndpoint === undefined) fail(`${absent}, and the CapabilityStatement at ${metadataUrl} names no token endpoint (oauth-uris extension)`);
  return { documentUrl: metadataUrl, tokenEndpoint, authMethods: undefined, signingAlgs: undefined };
}

function readConfiguration(url: string, res: HTTPResponse): SmartConfiguration {
  const doc = jsonObject(res);
  if (doc === undefined) fail(`the SMART configuration at ${url} is not a JSON object`);
  const tokenEndpoint = doc.token_endpoint;
  if (typeof tokenEndpoint !== 'string' || tokenEndpoint === '') fail(`the SMART configuration at ${url} has no token_endpoint`);
  return {
    documentUrl: url,
    tokenEndpoint,
    authMethods: stringList(doc, 'token_endpoint_auth_methods_supported', url),
    signingAlgs: stringList(doc, 'token_endpoint_auth_signing_alg_values_supported', url),
  };
}

/** The `token` sub-extension of the first `oauth-uris` extension in `rest[].security`. */
function oauthUrisToken(statement: Record<string, unknown> | undefined): string | undefined {
  if (statement?.resourceType !== 'CapabilityStatement' || !Array.isArray(statement.rest)) return undefined;
  for (const rest of statement.rest as { security?: { extension?: unknown } }[]) {
    const extensions = Array.isArray(rest?.security?.extension) ? (rest.security.extension as { url?: unknown; extension?: unknown }[]) : [];
    const uris = extensions.find((e) => e?.url === OAUTH_URIS_EXTENSION);
    const parts = Array.isArray(uris?.extension) ? (uris.extension as { url?: unknown; valueUri?: unknown }[]) : [];
    const token = parts.find((p) => p?.url === 'token')?.valueUri;
    if (typeof token === 'string' && token !== '') return token;
  }
  return undefined;
}

function stringList(doc: Record<string, unknown>, name: string, url: string): readonly string[] | undefined {
  const value = doc[name];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) fail(`the SMART configuration at ${url}: ${name} is not a list of strings`);
  return Object.freeze([...(value as string[])]);
}

async function get(send: Send, url: string, accept: string, timeoutMs: number, before?: string): Promise<HTTPResponse> {
  try {
    return await send(url, { method: 'GET', headers: { accept }, timeoutMs, maxResponseBytes: 4 * 1024 * 1024 });
  } catch (cause) {
    const code = isFhirgateError(cause) ? cause.code : 'ERR_NETWORK';
    return fail(`${before === undefined ? '' : `${before}, and `}reading ${url} failed: ${code}`, cause);
  }
}

function jsonObject(res: HTTPResponse): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(res.body.toString('utf8'));
    return isJSONObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function fail(reason: string, cause?: unknown): never {
  throw new FhirgateError('ERR_DISCOVERY', `SMART discovery failed: ${reason}`, cause === undefined ? {} : { cause });
}
