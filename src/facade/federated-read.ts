/**
 * Read and vread at the federated base, of the ids it issues: `{federated}/[type]/[source].[id]` is the
 * source's read of `[type]/[id]` (its policy, compartment, limits and AuditEvent, exactly as at
 * `{prefix}/{source}`), except that a source the caller may not use answers 404 with the very diagnostics
 * of an id nobody issued (both audited as refusals); the resource comes back as federated search entries show it (see
 * `federatedResource`).
 * @module
 */
import { isResourceType } from '../fhir/index.js';
import type { RouteReply, RouteRequest } from '../mount/index.js';
import { accessFacts, identified, servedSources } from './facade-context.js';
import type { FacadeContext } from './facade-context.js';
import { federatedResource, resolveFederatedId } from './federated-id.js';
import { fhirJSON, outcome } from './fhir-answer.js';
import type { Interaction } from './interaction.js';
import { answerSource } from './source-base.js';

/** The reply to `GET {federated}/[type]/[id]` (`rest` = type, id) or `…/_history/[vid]` (four segments). */
export async function answerFederatedRead(ctx: FacadeContext, req: RouteRequest, rest: readonly string[]): Promise<RouteReply> {
  const [type = '', federated = '', ...history] = rest;
  const sources = servedSources(ctx);
  const found = isResourceType(type) ? resolveFederatedId(federated, sources) : undefined;
  if (found === undefined) return unknownId(ctx, req, type, federated, history);
  const reply = await answerSource(ctx, req, found.source, [type, found.id, ...history], { hiddenAs: notKnown(type, federated) });
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

/** An id no source issued: 404 for an identified caller (401 first for bad credentials), audited as a refused read. */
async function unknownId(ctx: FacadeContext, req: RouteRequest, type: string, federated: string, history: readonly string[]): Promise<RouteReply> {
  const name = ctx.options.federatedName;
  const interaction: Interaction = { name: history.length === 0 ? 'read' : 'vread', ...(isResourceType(type) ? { type } : {}), conditional: false };
  const who = await identified(ctx, req, name, interaction);
  if ('reply' in who) return who.reply;
  ctx.audit.record(accessFacts(ctx, req, name, interaction, who.caller), { outcome: 4, outcomeDesc: `${type.slice(0, 64)}/${federated.slice(0, 130)} names no source of the federated base` });
  return outcome(404, 'not-found', notKnown(type, federated));
}

/** What a 404 of the federated base says, alike for an id no source issued and an id of a source the caller may not use (no oracle). */
function notKnown(type: string, federated: string): string {
  return `${type.slice(0, 64)}/${federated.slice(0, 130)} is not known (ids of the federated base are [type]/[source].[id])`;
}
