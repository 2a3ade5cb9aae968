/**
 * What `fhirgate check` does for one source: fetch a token (when the source has auth), read its
 * CapabilityStatement (`GET [base]/metadata`, which servers leave public) and make one authenticated
 * read (`GET [base]/<Type>?_count=1&_elements=id`), the same way the gateway would. The read is what
 * proves the credentials: a 401 or 403 there fails the source with the server's words.
 * @module
 */
import { parseConnectionString } from '../auth/index.js';
import { TokenManager } from '../auth/token-manager.js';
import { isFhirgateError } from '../errors.js';
import type { ResourceType } from '../fhir/index.js';
import { sourceTLS } from '../auth/source-tls.js';
import type { AgentPool } from '../http/agent-pool.js';
import type { HTTPRequestOptions, HTTPResponse } from '../http/request-options.js';
import { printable } from '../lib/printable.js';
import { SecretRedactor } from '../lib/redact-secrets.js';

/** One step's outcome: `ok` with what was learned, or not, with why (never a secret or a token). */
export interface StepResult {
  readonly ok: boolean;
  readonly detail: string;
}

/** The result of checking one source. */
export interface SourceCheck {
  readonly source: string;
  readonly base: string;
  /** `none`, `client secret` or `JWT assertion`. */
  readonly auth: string;
  /** `undefined` for a source without auth. */
  readonly token: StepResult | undefined;
  readonly metadata: StepResult;
  /** The authenticated read of one resource id (`[base]/<Type>?_count=1&_elements=id`). */
  readonly read: StepResult;
}

/** Options of {@link checkOneSource}. */
export interface CheckOptions {
  /** Time allowed per step, in milliseconds (a connection string's `timeout` wins). */
  readonly timeoutMs: number;
  /** The resource type of the authenticated read. */
  readonly readType: ResourceType;
  /** The pool the requests go through (with the proxy of the environment, if any), as the gateway's would. */
  readonly pool: AgentPool;
}

/** Sends one request of the source being checked: through the pool, with the source's TLS settings. */
type Send = (url: string, options: Omit<HTTPRequestOptions, 'agent'>) => Promise<HTTPResponse>;

/** Checks one source within `timeoutMs`. Never throws for a failing server: the failure is in the result. */
export async function checkOneSource(source: string, connectionString: string, options: CheckOptions): Promise<SourceCheck> {
  const config = parseConnectionString(connectionString);
  const auth = config.auth === undefined ? 'none' : config.auth.kind === 'client_secret' ? 'client secret' : 'JWT assertion';
  const base = { source, base: config.baseUrl, auth };
  const timeoutMs = config.timeoutMs ?? options.timeoutMs;
  let send: Send;
  try {
    const tls = sourceTLS(source, config.tlsFiles, undefined);
    send = (url, o) => options.pool.request(url, o, tls);
  } catch (error) {
    const notTried = { ok: false, detail: 'not tried (TLS files)' };
    return { ...base, token: config.auth === undefined ? undefined : failed(error), metadata: config.auth === undefined ? failed(error) : notTried, read: notTried };
  }
  let token: string | undefined;
  if (config.auth !== undefined) {
    try {
      const discovery = { baseUrl: config.baseUrl, allowHttp: config.allowHttp };
      const tokens = new TokenManager(config.auth, { send, timeoutMs, discovery });
      token = await tokens.token(AbortSignal.timeout(timeoutMs));
    } catch (error) {
      const notTried = { ok: false, detail: 'not tried (no token)' };
      return { ...base, token: failed(error), metadata: notTried, read: notTried };
    }
  }
  const tokenStep = token === undefined ? undefined : { ok: true, detail: 'Bearer token received' };
  const redact = new SecretRedactor({ secrets: [token, config.auth?.kind === 'client_secret' ? config.auth.clientSecret : undefined] });
  const [metadata, read] = await Promise.all([
    readMetadata(send, config.baseUrl, token, timeoutMs, redact),
    readOne(send, config.baseUrl, options.readType, token, timeoutMs, redact),
  ]);
  return { ...base, token: tokenStep, metadata, read };
}

async function get(send: Send, url: string, token: string | undefined, timeoutMs: number): Promise<HTTPResponse> {
  const headers: Record<string, string> = { accept: 'application/fhir+json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return send(url, { headers, timeoutMs, retry: false });
}

async function readMetadata(send: Send, baseUrl: string, token: string | undefined, timeoutMs: number, redact: SecretRedactor): Promise<StepResult> {
  try {
    const res = await get(send, `${baseUrl}/metadata`, token, timeoutMs);
    if (res.status !== 200) return refused(res, redact);
    const body = JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
    if (body.resourceType !== 'CapabilityStatement') return { ok: false, detail: 'the answer is not a CapabilityStatement' };
    const software = (body.software as { name?: unknown } | undefined)?.name;
    const version = typeof body.fhirVersion === 'string' ? `FHIR ${body.fhirVersion}` : 'no fhirVersion';
    return { ok: true, detail: typeof software === 'string' ? `${version}, ${oneLine(redact.text(software), 60)}` : version };
  } catch (error) {
    return failed(error);
  }
}

/** One search with the token: what a gateway call needs, and what a public /metadata does not prove. */
async function readOne(send: Send, baseUrl: string, type: ResourceType, token: string | undefined, timeoutMs: number, redact: SecretRedactor): Promise<StepResult> {
  try {
    const res = await get(send, `${baseUrl}/${type}?_count=1&_elements=id`, token, timeoutMs);
    if (res.status !== 200) return refused(res, redact);
    const body = JSON.parse(res.body.toString('utf8')) as { resourceType?: unknown; total?: unknown; entry?: unknown };
    if (body.resourceType !== 'Bundle') return { ok: false, detail: `the answer to GET ${type} is not a Bundle` };
    const total = typeof body.total === 'number' ? `, total ${body.total}` : '';
    return { ok: true, detail: `${type} search answered${total}` };
  } catch (error) {
    return failed(error);
  }
}

/** A non-200 answer: its status and the server's own words, without a credential or a control character. */
function refused(res: HTTPResponse, redact: SecretRedactor): StepResult {
  const words = serverWords(res);
  const why = res.status === 401 || res.status === 403 ? ' (the credentials were refused)' : '';
  return { ok: false, detail: `HTTP ${res.status}${why}${words === '' ? '' : `: ${oneLine(redact.text(words), 200)}`}` };
}

/** What a server said about a refusal: OperationOutcome diagnostics, an OAuth error, WWW-Authenticate, or a short text body. */
function serverWords(res: HTTPResponse): string {
  const text = res.body.subarray(0, 64 * 1024).toString('utf8');
  try {
    const body = JSON.parse(text) as { resourceType?: unknown; issue?: unknown; error?: unknown; error_description?: unknown };
    if (body.resourceType === 'OperationOutcome' && Array.isArray(body.issue)) {
      const said = (body.issue as { diagnostics?: unknown; details?: { text?: unknown } }[]).map((i) => i?.diagnostics ?? i?.details?.text).filter((w) => typeof w === 'string');
      if (said.length > 0) return said.join('; ');
    }
    const oauth = [body.error, body.error_description].filter((w) => typeof w === 'string');
    if (oauth.length > 0) return oauth.join(': ');
  } catch {
    if (/^text\/plain\b/i.test(String(res.headers['content-type'] ?? '')) && text.trim() !== '') return text;
  }
  const challenge = res.headers['www-authenticate'];
  return typeof challenge === 'string' ? challenge : '';
}

/** Bidirectional controls, which `printable` keeps: they would reorder what the terminal shows. */
const BIDI = /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Upstream text as one printable line of at most `max` characters. */
function oneLine(text: string, max: number): string {
  const line = printable(text).replace(BIDI, '').replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** A failure as one line: the error's code and message (fhirgate's messages never hold a secret). */
function failed(error: unknown): StepResult {
  if (isFhirgateError(error)) return { ok: false, detail: `${error.code}: ${oneLine(error.message.split('\n')[0]!, 160)}` };
  if (error instanceof SyntaxError) return { ok: false, detail: 'the answer is not JSON' };
  return { ok: false, detail: error instanceof Error ? error.name : 'failed' };
}
