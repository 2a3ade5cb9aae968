/**
 * The AuditEvents of an answered access: for a search, one per patient in the result (BALP
 * PatientQuery), or one Query when none is; for the other interactions one, naming the resource
 * (versioned when known) and its patient.
 * @module
 */
import type { RouteRequest } from '../mount/index.js';
import type { Caller } from './caller.js';
import { patientOf } from './compartment.js';
import { accessFacts, outcomeOf } from './facade-context.js';
import type { FacadeContext } from './facade-context.js';
import type { Interaction } from './interaction.js';
import type { BaseRewriter } from './url-rewrite.js';

/** Records the AuditEvent(s) of an answered access; `params` are a search's parameters when a form body added to its query. */
export function recordAnswer(
  ctx: FacadeContext, req: RouteRequest, source: string, interaction: Interaction, caller: Caller, compartment: string | undefined,
  status: number, body: Record<string, unknown> | undefined, location: string | undefined, rewriter: BaseRewriter,
  params?: URLSearchParams,
): void {
  const access = accessFacts(ctx, req, source, interaction, caller, rewriter.facadeBase);
  const outcome = outcomeOf(status);
  const outcomeDesc = status >= 400 ? `answered ${status}` : undefined;
  const bases = rewriter.bases;
  const { name } = interaction;
  if (name === 'search-type' || name === 'search-system' || name === 'history-type' || name === 'history-system') {
    const query = requestQuery(req, params);
    const patients = new Set<string>();
    if (compartment !== undefined) patients.add(`Patient/${compartment}`);
    else for (const e of (body?.entry ?? []) as { resource?: unknown }[]) {
      const p = patientOf(e.resource, bases);
      if (p !== undefined) patients.add(p);
    }
    if (patients.size === 0) ctx.audit.record(access, { outcome, outcomeDesc, query });
    for (const patient of patients) ctx.audit.record(access, { outcome, outcomeDesc, query, patient });
    return;
  }
  const resource = body?.resourceType === interaction.type ? body : undefined;
  const version = interaction.versionId ?? (resource?.meta as { versionId?: string } | undefined)?.versionId;
  const id = interaction.id ?? (resource?.id as string | undefined);
  const fromLocation = location === undefined ? undefined : /([A-Za-z]+\/[A-Za-z0-9\-.]{1,64}(\/_history\/[A-Za-z0-9\-.]{1,64})?)$/.exec(location)?.[1];
  const what = fromLocation ?? (interaction.type === undefined || id === undefined ? undefined : `${interaction.type}/${id}${version === undefined ? '' : `/_history/${version}`}`);
  const patient = compartment !== undefined ? `Patient/${compartment}` : patientOf(resource, bases);
  ctx.audit.record(access, { outcome, outcomeDesc, what, patient });
}

/** The request as sent to the facade (`GET /ehr/Observation?code=x`), for a search's query entity. */
export function requestQuery(req: RouteRequest, params?: URLSearchParams): string {
  const url = req.url; // a new URL per read of req.url: read once
  // `params`: the query with a `_search` form body's parameters, audited as if they had been in the URL.
  const search = params === undefined ? url.search : params.size === 0 ? '' : `?${params.toString()}`;
  return `${req.method} ${url.pathname.slice(new URL(req.baseUrl).pathname.length)}${search}`;
}
