/**
 * The life of one Bulk Data export job on a server (Bulk Data Access IG 2.0.0): the kick-off, the
 * status requests until the manifest, and the `DELETE` that cancels or ends it.
 * @module
 */
import { FhirgateError } from '../../errors.js';
import { isJSONObject } from '../../lib/json-object.js';
import { printable } from '../../lib/printable.js';
import type { HTTPResponse } from '../../http/request-options.js';
import { parseRetryAfter } from '../../http/retry-after.js';
import { abortError, pause } from '../../http/signals.js';
import type { Source } from '../core/source-registry.js';
import type { BulkSettings } from './options.js';
import type { BulkHost } from './types.js';

/** Statuses of a status request that this module reads itself instead of failing at once. */
const ANSWERED = Array.from({ length: 200 }, (_, i) => 400 + i);
/** Issue codes of the IssueType value set's `transient` branch: the job may still be running. */
const TRANSIENT = new Set(['transient', 'lock-error', 'no-store', 'exception', 'timeout', 'incomplete', 'throttled']);

/**
 * Sends the kick-off request (`Prefer: respond-async`, `Accept: application/fhir+json`) and returns
 * the status URL from the 202's `Content-Location`. A non-2xx answer is `ERR_FHIR_HTTP` with the
 * server's OperationOutcome; any other answer is `ERR_BULK_RESPONSE`.
 */
export async function kickOff(host: BulkHost, src: Source, settings: BulkSettings): Promise<URL> {
  const path = exportPath(settings);
  const url = new URL(`${src.baseUrl}/${path}`);
  if (settings.types.length > 0) url.searchParams.set('_type', settings.types.join(','));
  if (settings.since !== undefined) url.searchParams.set('_since', settings.since);
  for (const filter of settings.typeFilter) url.searchParams.append('_typeFilter', filter);
  const headers = { accept: 'application/fhir+json', prefer: 'respond-async' };
  const res = await host.call(src, { method: 'GET', url, headers, operation: 'bulk export kick-off', reference: path, signal: settings.signal });
  const location = header(res, 'content-location');
  if (res.status !== 202 || location === undefined || !URL.canParse(location, `${src.baseUrl}/`)) {
    const why = res.status !== 202 ? `${res.status} instead of 202 Accepted` : 'a 202 without a usable Content-Location';
    throw new FhirgateError('ERR_BULK_RESPONSE', `bulk export kick-off at source "${src.name}": the server answered ${why}`, { status: res.status });
  }
  return new URL(location, `${src.baseUrl}/`);
}

/** The kick-off path under the base: `$export`, `Patient/$export` or `Group/[id]/$export`. */
export function exportPath({ level }: BulkSettings): string {
  return level === 'system' ? '$export' : level === 'patient' ? 'Patient/$export' : `Group/${level.group}/$export`;
}

/**
 * Polls the status URL until the manifest comes (200), and returns its parsed JSON. Waits
 * `pollIntervalSeconds` between status requests, longer when an answer's `Retry-After` (seconds or an
 * HTTP-date) says so, never shorter; each 202 is one `fhir.bulk.progress` event with its `X-Progress`.
 * Up to `maxPollErrors` 429s and transient failures in a row are waited out; then, and for any other
 * error status, `ERR_BULK_FAILED` (the server's answer is the cause). A `Retry-After` that reaches past the
 * deadline is `ERR_TIMEOUT`, one of more than a day (an absolute time sent where seconds belong)
 * `ERR_BULK_RESPONSE`; both name the status and the header.
 */
export async function awaitManifest(host: BulkHost, src: Source, statusUrl: URL, settings: BulkSettings): Promise<unknown> {
  const endAt = performance.now() + settings.deadlineMs;
  const what = `bulk export at source "${src.name}"`;
  // Each status request is sent once: this loop decides about retries, with the server's Retry-After.
  let failures = 0;
  for (let poll = 1; ; poll++) {
    if (settings.signal?.aborted === true) throw abortError(settings.signal, what);
    const res = await host.call(src, { method: 'GET', url: statusUrl, headers: { accept: 'application/json' }, operation: 'bulk export status', reference: 'job', signal: settings.signal, retry: false, expected: ANSWERED });
    if (res.status === 200) return manifestJson(res, what);
    if (res.status === 202) {
      failures = 0;
      const progress = header(res, 'x-progress')?.slice(0, 100);
      host.emit('fhir.bulk.progress', () => ({ source: src.name, operation: 'export', poll, progress }));
    } else if (res.status >= 400) {
      // A 429 counts like a transient failure: a server that throttles every status request ends the export.
      if ((res.status !== 429 && !isTransient(res)) || ++failures > settings.maxPollErrors) {
        const why = failures > settings.maxPollErrors ? `${failures} status requests in a row failed, the last with ${res.status}` : `the job failed (${res.status})`;
        throw new FhirgateError('ERR_BULK_FAILED', `${what}: ${why}${outcomeText(res)}`, { status: res.status, cause: json(res) });
      }
    } else {
      throw new FhirgateError('ERR_BULK_RESPONSE', `${what}: the status request answered ${res.status}, neither 202 nor 200`, { status: res.status });
    }
    await pause(nextWait(res, settings, endAt - performance.now(), what), settings.signal, what);
  }
}

/** The longest `Retry-After` honoured: a longer one is no wait a server means (the SMART reference server sends an absolute epoch time on its 429s). */
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/**
 * Milliseconds until the next status request: `pollIntervalMs`, or the answer's `Retry-After` when it is
 * longer. Throws when that wait cannot be honoured, naming the status and the header, so that a server's
 * throttling is never reported as a job that took too long.
 */
function nextWait(res: HTTPResponse, settings: BulkSettings, leftMs: number, what: string): number {
  const value = header(res, 'retry-after');
  const askedMs = parseRetryAfter(value, Date.now());
  const asked = `the status request answered ${res.status} with Retry-After: ${printable(value ?? '').slice(0, 40)}`;
  if (askedMs !== undefined && askedMs > MAX_RETRY_AFTER_MS) {
    throw new FhirgateError('ERR_BULK_RESPONSE', `${what}: ${asked}, a wait of ${Math.round(askedMs / 86_400_000)} days, not honoured (more than a day: an absolute time where seconds belong?)`, { status: res.status });
  }
  const waitMs = Math.max(askedMs ?? 0, settings.pollIntervalMs);
  if (waitMs >= leftMs) {
    const why = askedMs !== undefined && askedMs >= leftMs ? `${asked}, a wait of ${Math.ceil(askedMs / 1000)} s` : `the next status request is due in ${waitMs / 1000} s`;
    throw new FhirgateError('ERR_TIMEOUT', `${what} cannot finish within its deadline of ${settings.deadlineMs / 1000} s: ${why}, and ${Math.max(0, Math.floor(leftMs / 1000))} s are left`, { status: res.status });
  }
  return waitMs;
}

/**
 * Sends `DELETE` to the status URL (cancels a running job, or tells the server its files may go);
 * never throws: a job that cannot be deleted must not hide why the export ended.
 */
export async function deleteJob(host: BulkHost, src: Source, statusUrl: URL): Promise<void> {
  try {
    await host.call(src, { method: 'DELETE', url: statusUrl, operation: 'bulk export delete', reference: 'job', signal: undefined, expected: [404, 410] });
  } catch {
    // The export already ended (or failed); the server will expire the job on its own.
  }
}

function header(res: HTTPResponse, name: string): string | undefined {
  const value = res.headers[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function json(res: HTTPResponse): unknown {
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** A 5xx without an OperationOutcome, or an OperationOutcome whose issues are all transient. */
function isTransient(res: HTTPResponse): boolean {
  const issues = (json(res) as { resourceType?: unknown; issue?: unknown } | undefined);
  if (issues?.resourceType !== 'OperationOutcome' || !Array.isArray(issues.issue) || issues.issue.length === 0) return res.status >= 500;
  return issues.issue.every((i: { code?: unknown } | null) => TRANSIENT.has(String(i?.code)));
}

function outcomeText(res: HTTPResponse): string {
  const issue = (json(res) as { issue?: { diagnostics?: unknown; details?: { text?: unknown } }[] } | undefined)?.issue?.[0];
  const text = issue?.diagnostics ?? issue?.details?.text;
  return typeof text === 'string' ? `: ${text.slice(0, 200)}` : '';
}

function manifestJson(res: HTTPResponse, what: string): unknown {
  const value = json(res);
  if (!isJSONObject(value)) {
    throw new FhirgateError('ERR_BULK_RESPONSE', `${what}: the manifest is not a JSON object`, { status: res.status });
  }
  return value;
}
