/**
 * Read and vread at the federated base, of the ids it issues: `{federated}/[type]/[source].[id]` is the
 * source's read of `[type]/[id]` (its policy, compartment, limits and AuditEvent, exactly as at
 * `{prefix}/{source}`), except that a source the caller may not use answers as an id nobody issued does
 * (the same 404, decided before anything else of the request is looked at; both audited as refusals);
 * the resource comes back as federated search entries show it (see `federatedResource`).
 * @module
 */
import { isResourceType } from '../fhir/index.js';
import type { RouteReply, RouteRequest } from '../mount/index.js';
import { mayUseSource, patientIn, sourceRefusal } from './caller.js';
import type { Caller } from './caller.js';
import { accessFacts, identified, servedSources } from './facade-context.js';
import type { FacadeContext } from './facade-context.js';
import { federatedResource, resolveFederatedId } from './federated-id.js';
import { fhirJSON, outcome } from './fhir-answer.js';
import type { Interaction } from './interaction.js';
import { answerSource } from './source-base.js';

/** The reply to `GET {federated}/[type]/[id]` (`rest` = type, id) or `…/_history/[vid]` (four segments). */
export async function answerFederatedRead(ctx: FacadeContext, req: RouteRequest, rest: readonly string[]): Promise<RouteReply> {
  const [type = '', federated = '', ...history] = rest;
  const interaction: Interaction = { name: history.length === 0 ? 'read' : 'vread', ...(isResourceType(type) ? { type } : {}), conditional: false };
  const who = await identified(ctx, req, ctx.options.federatedName, interaction);
  if ('reply' in who) return who.reply;
  const { caller } = who;
  const sources = servedSources(ctx);
  const found = isResourceType(type) ? resolveFederatedId(federated, sources) : undefined;
  // A source the caller may not use takes the very path of an id no source issued: one answer for both, whatever else the request holds.
  if (found === undefined) return notKnown(ctx, req, interaction, caller, type, federated, 'names no source of the federated base');
  if (!mayUseSource(caller, found.source)) return notKnown(ctx, req, interaction, caller, type, federated, `names a source the caller may not use: caller may not use source "${found.source}"`);
  if (caller.patient !== undefined && patientIn(caller, found.source) === undefined) return notKnown(ctx, req, interaction, caller, type, federated, `names a source where the caller's patient has no record: ${sourceRefusal(caller, found.source)}`);
  const reply = await answerSource(ctx, req, found.source, [type, found.id, ...history], { caller });
  if ((reply.status ?? 200) !== 200 || reply.body === undefined) return reply;
  let resource: unknown;
  try {
    resource = JSON.parse(typeof reply.body === 'string' ? reply.body : Buffer.from(reply.body).toString('utf8'));
  } catch {
    return reply;
  }
  if ((resource as { resourceType?: unknown } | null)?.resourceType !== type) return reply;
  const sourceBase = `${req.baseUrl}/${found.source}`;
  return fhirJSON(200, federatedResource(resource as Record<string, unknown>, { source: found.source, sourceBase, sources }), reply.headers);
}

/** The 404 of an id the caller cannot read at the federated base, audited as a refused read (`why` for the audit only). */
function notKnown(ctx: FacadeContext, req: RouteRequest, interaction: Interaction, caller: Caller, type: string, federated: string, why: string): RouteReply {
  const shown = `${type.slice(0, 64)}/${federated.slice(0, 130)}`;
  ctx.audit.record(accessFacts(ctx, req, ctx.options.federatedName, interaction, caller), { outcome: 4, outcomeDesc: `${shown} ${why}` });
  return outcome(404, 'not-found', `${shown} is not known (ids of the federated base are [type]/[source].[id])`);
}
