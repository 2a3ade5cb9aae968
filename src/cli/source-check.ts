/**
 * What `fhirgate check` does for one source: fetch a token (when the source has auth) and read its
 * CapabilityStatement (`GET [base]/metadata`), the same way the gateway would.
 * @module
 */
import { parseConnectionString } from '../auth/index.js';
import { TokenManager } from '../auth/token-manager.js';
import { isFhirgateError } from '../errors.js';
import { request } from '../http/request.js';

/**
 * One step's outcome: `ok` with what was learned, or not, with why (never a secret or a token).
 *
 * @example
 * ```ts
 * const step: StepResult = { ok: true, detail: 'Bearer token, expires in 300 s' };
 * ```
 */
export interface StepResult {
  readonly ok: boolean;
  readonly detail: string;
}

/**
 * The result of checking one source.
 *
 * @example
 * ```ts
 * const row: SourceCheck = { source: 'ehr', base: 'https://ehr.example.org/r4', auth: 'client secret', token: { ok: true, detail: 'ok' }, metadata: { ok: true, detail: 'FHIR 4.0.1' } };
 * ```
 */
export interface SourceCheck {
  readonly source: string;
  readonly base: string;
  /** `none`, `client secret` or `JWT assertion`. */
  readonly auth: string;
  /** `undefined` for a source without auth. */
  readonly token: StepResult | undefined;
  readonly metadata: StepResult;
}

/**
 * Checks one source within `timeoutMs`. Never throws for a failing server: the failure is in the result.
 *
 * @example
 * ```ts
 * const row = await checkOneSource('ehr', 'fhir://localhost:8080/fhir/', { timeoutMs: 10_000 });
 * ```
 */
export async function checkOneSource(source: string, connectionString: string, options: { timeoutMs: number }): Promise<SourceCheck> {
  const config = parseConnectionString(connectionString);
  const auth = config.auth === undefined ? 'none' : config.auth.kind === 'client_secret' ? 'client secret' : 'JWT assertion';
  const base = { source, base: config.baseUrl, auth };
  const timeoutMs = config.timeoutMs ?? options.timeoutMs;
  let token: string | undefined;
  if (config.auth !== undefined) {
    try {
      const discovery = { baseUrl: config.baseUrl, allowHttp: config.allowHttp };
      const tokens = new TokenManager(config.auth, { send: (url, o) => request(url, o), timeoutMs, discovery });
      token = await tokens.token(AbortSignal.timeout(timeoutMs));
    } catch (error) {
      return { ...base, token: failed(error), metadata: { ok: false, detail: 'not tried (no token)' } };
    }
  }
  const tokenStep = token === undefined ? undefined : { ok: true, detail: 'Bearer token received' };
  return { ...base, token: tokenStep, metadata: await readMetadata(config.baseUrl, token, timeoutMs) };
}

async function readMetadata(baseUrl: string, token: string | undefined, timeoutMs: number): Promise<StepResult> {
  try {
    const headers: Record<string, string> = { accept: 'application/fhir+json' };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const res = await request(`${baseUrl}/metadata`, { headers, timeoutMs, retry: false });
    if (res.status !== 200) return { ok: false, detail: `HTTP ${res.status}` };
    const body = JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
    if (body.resourceType !== 'CapabilityStatement') return { ok: false, detail: 'the answer is not a CapabilityStatement' };
    const software = (body.software as { name?: unknown } | undefined)?.name;
    const version = typeof body.fhirVersion === 'string' ? `FHIR ${body.fhirVersion}` : 'no fhirVersion';
    return { ok: true, detail: typeof software === 'string' ? `${version}, ${software.slice(0, 60)}` : version };
  } catch (error) {
    return failed(error);
  }
}

/** A failure as one line: the error's code and message (fhirgate's messages never hold a secret). */
function failed(error: unknown): StepResult {
  if (isFhirgateError(error)) return { ok: false, detail: `${error.code}: ${error.message.split('\n')[0]!.slice(0, 160)}` };
  if (error instanceof SyntaxError) return { ok: false, detail: 'the answer is not JSON' };
  return { ok: false, detail: error instanceof Error ? error.name : 'failed' };
}
