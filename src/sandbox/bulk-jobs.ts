/**
 * The sandbox's Bulk Data export jobs (Bulk Data Access IG 2.0.0): what a kick-off selects, and the
 * jobs of one sandbox, kept until they are deleted or the sandbox closes.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { FhirgateError } from '../errors.js';
import { isResourceType, RESOURCE_TYPES, type Resource } from '../fhir/index.js';
import type { SandboxContext } from './context.js';

/** Where an export starts: the whole server, every patient, or the members of one Group. */
export type ExportLevel = { readonly kind: 'system' } | { readonly kind: 'patient' } | { readonly kind: 'group'; readonly id: string };

/**
 * One export job: the resources it selected at kick-off (references, never copies: a write stores a
 * new object), and how many more status requests answer "in progress".
 */
export interface ExportJob {
  readonly id: string;
  /** The kick-off URL, for the manifest's `request`. */
  readonly request: string;
  readonly transactionTime: string;
  /** The selected resources by type, in store order; types without a match are left out. */
  readonly files: ReadonlyMap<string, readonly Resource[]>;
  /** Status requests still answered 202. */
  pollsLeft: number;
  polls: number;
}

const jobsOf = new WeakMap<SandboxContext, Map<string, ExportJob>>();

/** The export jobs of a sandbox. */
export function exportJobs(ctx: SandboxContext): Map<string, ExportJob> {
  let jobs = jobsOf.get(ctx);
  if (jobs === undefined) jobsOf.set(ctx, (jobs = new Map()));
  return jobs;
}

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const NDJSON_FORMATS = new Set(['application/fhir+ndjson', 'application/ndjson', 'ndjson']);

function bad(message: string): FhirgateError {
  return new FhirgateError('ERR_BAD_REQUEST', message, { status: 400 });
}

/**
 * Checks the kick-off parameters (`_type`, `_since`, `_outputFormat`; `_typeFilter` is refused as
 * not supported, 400), selects the resources and stores a new job. A Group that does not exist is 404.
 */
export function startJob(ctx: SandboxContext, level: ExportLevel, query: URLSearchParams, request: string): ExportJob {
  const types = query.getAll('_type').flatMap((v) => v.split(',')).map((t) => t.trim()).filter((t) => t !== '');
  for (const t of types) if (!isResourceType(t)) throw bad(`_type: "${t.slice(0, 64)}" is not a resource type`);
  const since = query.get('_since');
  if (since !== null && (!INSTANT.test(since) || Number.isNaN(Date.parse(since)))) throw bad('_since must be a FHIR instant (e.g. 2024-01-01T00:00:00Z)');
  const format = query.get('_outputFormat');
  if (format !== null && !NDJSON_FORMATS.has(format)) throw bad('_outputFormat: the sandbox writes application/fhir+ndjson only');
  if (query.has('_typeFilter')) throw bad('_typeFilter is not supported by the sandbox');
  const sinceMs = since === null ? undefined : Date.parse(since);
  const patients = patientsOf(ctx, level);
  const files = new Map<string, Resource[]>();
  for (const type of types.length > 0 ? new Set(types) : RESOURCE_TYPES) {
    const selected = [...ctx.store.list(type)].filter((r) => isSelected(r, patients, sinceMs));
    if (selected.length > 0) files.set(type, selected);
  }
  const job: ExportJob = { id: randomUUID(), request, transactionTime: new Date().toISOString(), files, pollsLeft: ctx.options.exportPolls, polls: 0 };
  exportJobs(ctx).set(job.id, job);
  return job;
}

/** The patient ids a level is about: `undefined` for system level (everything). */
function patientsOf(ctx: SandboxContext, level: ExportLevel): ReadonlySet<string> | undefined {
  if (level.kind === 'system') return undefined;
  if (level.kind === 'patient') return new Set([...ctx.store.list('Patient')].map((p) => p.id as string));
  const group = ctx.store.read('Group', level.id);
  if (group.state !== 'found') throw new FhirgateError('ERR_NOT_FOUND', `Group/${level.id} is not known`, { status: 404 });
  const members = (group.resource as { member?: { entity?: { reference?: string } }[] }).member ?? [];
  return new Set(members.flatMap((m) => /^Patient\/([^/]+)$/.exec(m.entity?.reference ?? '')?.[1] ?? []));
}

/** In the export: changed after `_since`, and (patient and group level) a member patient or about one. */
function isSelected(resource: Resource, patients: ReadonlySet<string> | undefined, sinceMs: number | undefined): boolean {
  if (sinceMs !== undefined && Date.parse(resource.meta?.lastUpdated ?? '') <= sinceMs) return false;
  if (patients === undefined) return true;
  if (resource.resourceType === 'Patient') return patients.has(resource.id as string);
  const r = resource as { subject?: { reference?: string }; patient?: { reference?: string } };
  const ref = r.subject?.reference ?? r.patient?.reference;
  const id = /^Patient\/([^/]+)$/.exec(ref ?? '')?.[1];
  return id !== undefined && patients.has(id);
}
