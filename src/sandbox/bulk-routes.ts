/**
 * The sandbox's Bulk Data export endpoints (Bulk Data Access IG 2.0.0): the kick-off at
 * `[base]/$export`, `[base]/Patient/$export` and `[base]/Group/[id]/$export`; the status endpoint
 * `[base]/$export-status/[job]` (202 with `Retry-After` and `X-Progress` while running, then the
 * manifest; `DELETE` ends the job); and the NDJSON files `[base]/$export-file/[job]/[Type].ndjson`,
 * written line by line as the client reads them.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { FhirgateError } from '../errors.js';
import { isFHIRId } from '../fhir/index.js';
import { drained } from '../lib/drained.js';
import { exportJobs, startJob, type ExportJob, type ExportLevel } from './bulk-jobs.js';
import type { SandboxRoute, SandboxContext } from './context.js';
import { sendJSON, sendOutcome } from './reply.js';

const STATUS = '$export-status';
const FILE = '$export-file';

/**
 * The Bulk Data route for the path segments after the FHIR base, or `undefined` when the path is
 * not a Bulk Data one.
 */
export function bulkRoute(method: string, rest: readonly string[]): SandboxRoute | undefined {
  const [first = '', second, third] = rest;
  const kickoff = (level: ExportLevel): SandboxRoute => (method === 'GET' ? { kind: 'other', public: false, run: (ctx, req, res, q) => kickOff(ctx, req, res, q, level) } : notAllowed('GET, HEAD'));
  if (rest.length === 1 && first === '$export') return kickoff({ kind: 'system' });
  if (rest.length === 2 && first === 'Patient' && second === '$export') return kickoff({ kind: 'patient' });
  if (rest.length === 3 && first === 'Group' && third === '$export' && second !== undefined && isFHIRId(second)) return kickoff({ kind: 'group', id: second });
  if (rest.length === 2 && first === STATUS) {
    if (method === 'GET') return { kind: 'other', public: false, run: (ctx, _req, res) => status(ctx, res, second as string) };
    if (method === 'DELETE') return { kind: 'other', public: false, run: (ctx, _req, res) => remove(ctx, res, second as string) };
    return notAllowed('GET, HEAD, DELETE');
  }
  if (rest.length === 3 && first === FILE) {
    return method === 'GET' ? { kind: 'other', public: false, run: (ctx, _req, res) => sendFile(ctx, res, second as string, third as string) } : notAllowed('GET, HEAD');
  }
  return undefined;
}

function notAllowed(allow: string): SandboxRoute {
  return { kind: 'other', public: true, run: (_ctx, _req, res) => sendOutcome(res, 405, 'not-supported', 'method not allowed here', { allow }) };
}

function kickOff(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse, query: URLSearchParams, level: ExportLevel): void {
  if (!/(^|[\s,;])respond-async($|[\s,;])/i.test(String(req.headers.prefer ?? ''))) {
    throw new FhirgateError('ERR_BAD_REQUEST', 'a Bulk Data kick-off needs "Prefer: respond-async"', { status: 400 });
  }
  const accept = String(req.headers.accept ?? 'application/fhir+json');
  if (!/application\/(fhir\+)?json|\*\/\*/i.test(accept)) {
    throw new FhirgateError('ERR_BAD_REQUEST', 'a Bulk Data kick-off answers application/fhir+json only (Accept)', { status: 400 });
  }
  const path = level.kind === 'system' ? '$export' : level.kind === 'patient' ? 'Patient/$export' : `Group/${level.id}/$export`;
  const job = startJob(ctx, level, query, `${ctx.fhirBase}/${path}${query.size === 0 ? '' : `?${query}`}`);
  sendOutcome(res, 202, 'informational', 'the export has started', { 'content-location': `${ctx.fhirBase}/${STATUS}/${job.id}` });
}

function jobOf(ctx: SandboxContext, id: string): ExportJob {
  const job = exportJobs(ctx).get(id);
  if (job === undefined) throw new FhirgateError('ERR_NOT_FOUND', 'no such export job (it may have been deleted)', { status: 404 });
  return job;
}

function status(ctx: SandboxContext, res: ServerResponse, id: string): void {
  const job = jobOf(ctx, id);
  job.polls++;
  if (job.pollsLeft > 0) {
    job.pollsLeft--;
    const done = ctx.options.exportPolls - job.pollsLeft;
    res.writeHead(202, { 'retry-after': String(ctx.options.exportRetryAfterSeconds), 'x-progress': `in progress: step ${done} of ${ctx.options.exportPolls + 1}`, 'content-length': '0' });
    res.end();
    return;
  }
  const file = (type: string, count: number) => ({ type, url: `${ctx.fhirBase}/${FILE}/${job.id}/${type}.ndjson`, count });
  sendJSON(res, 200, {
    transactionTime: job.transactionTime,
    request: job.request,
    requiresAccessToken: !ctx.options.open,
    output: [...job.files].map(([type, resources]) => file(type, resources.length)),
    error: [],
  }, {}, 'application/json; charset=utf-8');
}

function remove(ctx: SandboxContext, res: ServerResponse, id: string): void {
  jobOf(ctx, id);
  exportJobs(ctx).delete(id);
  sendOutcome(res, 202, 'informational', 'the export job was deleted');
}

/** Writes one output file, a line a resource, waiting for the client whenever the socket is full. */
async function sendFile(ctx: SandboxContext, res: ServerResponse, id: string, name: string): Promise<void> {
  const resources = jobOf(ctx, id).files.get(name.replace(/\.ndjson$/, ''));
  if (resources === undefined || !name.endsWith('.ndjson')) throw new FhirgateError('ERR_NOT_FOUND', 'no such file in this export', { status: 404 });
  res.writeHead(200, { 'content-type': 'application/fhir+ndjson' });
  for (const resource of resources) {
    if (res.destroyed) return;
    if (!res.write(`${JSON.stringify(resource)}\n`)) await drained(res);
  }
  res.end();
}
