/**
 * The federated base `{prefix}/{federated}`: which of its three answers a request gets. Search
 * (`GET [type]?…`, `POST [type]/_search`, a page token there, on the base or in a `POST _search`), read and vread of the ids it issued
 * (`GET [type]/[source].[id]`, `…/_history/[vid]`), `Patient/[id]/$everything` (`patient-everything.ts`), and its
 * CapabilityStatement (`GET metadata`).
 * Everything else is 404 for a GET and 405 otherwise: writes are never federated.
 * @module
 */
import type { RouteReply, RouteRequest } from '../mount/index.js';
import { attemptedInteraction, auditRefused } from './audit-refusal.js';
import type { FacadeContext } from './facade-context.js';
import { answerFederatedCapabilities } from './federated-capabilities.js';
import { answerFederatedRead } from './federated-read.js';
import { answerFederatedSearch } from './federated-search.js';
import { outcome } from './fhir-answer.js';
import { answerPatientEverything, asksEverything } from './patient-everything.js';
import { PAGE_TOKEN_PARAM } from './upstream-request.js';

/** The reply to a request under the federated base; `rest` are the segments after its name. */
export function answerFederated(ctx: FacadeContext, req: RouteRequest, rest: readonly string[]): Promise<RouteReply> | RouteReply {
  const get = req.method === 'GET';
  if (get && rest.length === 1 && rest[0] === 'metadata') return answerFederatedCapabilities(ctx, req);
  if (get && asksEverything(rest)) return answerPatientEverything(ctx, req, rest);
  if (get && (rest.length === 1 || (rest.length === 0 && req.query.get(PAGE_TOKEN_PARAM) !== null))) return answerFederatedSearch(ctx, req, rest);
  if (req.method === 'POST' && ((rest.length === 2 && rest[1] === '_search') || (rest.length === 1 && rest[0] === '_search'))) return answerFederatedSearch(ctx, req, rest);
  if (get && (rest.length === 2 || (rest.length === 4 && rest[2] === '_history'))) return answerFederatedRead(ctx, req, rest);
  const name = ctx.options.federatedName;
  const [status, reason] = get ? [404, `the federated base answers GET ${name}/[type]?…, [type]/[id], [type]/[id]/_history/[vid], Patient/[id]/$everything and metadata`] : [405, 'writes are never federated: send them to {prefix}/{source}'];
  auditRefused(ctx, req, name, `${req.baseUrl}/${name}`, attemptedInteraction(req.method), status, reason);
  return outcome(status, get ? 'not-found' : 'not-supported', reason);
}
