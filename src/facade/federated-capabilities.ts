/**
 * The federated base's CapabilityStatement (`{federated}/metadata`): what it really serves, built from
 * the sources' own statements. A resource type is listed when a source the caller may use lists it, with
 * the interactions the federated base has (`read`, `vread`, `search-type`) that such a source lists for
 * it, and the search parameters every such source that searches it declares (a parameter one source
 * lacks would be ignored there, not applied). No writes, no system interactions, JSON only; `url` and
 * `implementation.url` at the federated base. Each source's statement is fetched when asked, through its
 * limits; one that fails contributes nothing and is named in `rest.documentation`.
 * @module
 */
import type { RouteReply, RouteRequest } from '../mount/index.js';
import { VERSION } from '../version.js';
import type { Caller } from './caller.js';
import { accessFacts, identified, servedSources } from './facade-context.js';
import type { FacadeContext } from './facade-context.js';
import { fhirJSON, outcome } from './fhir-answer.js';
import type { Interaction } from './interaction.js';
import { decide } from './policy.js';
import { FACADE_SECURITY } from './statement-security.js';
import { checkFormat } from './upstream-request.js';

/** The interactions of the federated base, in the order a statement lists them. */
const SERVED = ['read', 'vread', 'search-type'] as const;

/** The FHIR version stated when the sources do not all state the same one. */
const DEFAULT_FHIR_VERSION = '4.0.1';

/** What one source's statement says about the types the federated base may serve. */
export interface SourceFacts {
  readonly fhirVersion: string | undefined;
  /** True when it lists the `everything` operation on Patient (`Patient/[id]/$everything`). */
  readonly everything: boolean;
  /** Type → the served interactions it lists, and its search parameters (name → type). */
  readonly types: ReadonlyMap<string, { readonly interactions: ReadonlySet<string>; readonly params: ReadonlyMap<string, string> }>;
}

const CAPABILITIES: Interaction = { name: 'capabilities', conditional: false };

/** The reply to `GET {federated}/metadata`. */
export async function answerFederatedCapabilities(ctx: FacadeContext, req: RouteRequest): Promise<RouteReply> {
  const name = ctx.options.federatedName;
  const who = await identified(ctx, req, name, CAPABILITIES);
  if ('reply' in who) return who.reply;
  const { caller } = who;
  try {
    checkFormat(req.headers, req.query);
  } catch (error) {
    ctx.audit.record(accessFacts(ctx, req, name, CAPABILITIES, caller), { outcome: 4, outcomeDesc: (error as Error).message });
    return outcome(406, 'not-supported', (error as Error).message);
  }
  const sources = servedSources(ctx).filter((s) => decide(caller, s, CAPABILITIES, req.query).allowed);
  const facts = await Promise.all(sources.map((s) => sourceFacts(ctx, req, caller, s)));
  const used = sources.filter((_, i) => facts[i] !== undefined);
  const missing = sources.filter((_, i) => facts[i] === undefined);
  const statement = federatedStatement(`${req.baseUrl}/${name}`, used, facts.filter((f): f is SourceFacts => f !== undefined), missing);
  ctx.audit.record(accessFacts(ctx, req, name, CAPABILITIES, caller), { outcome: 0 });
  return fhirJSON(200, statement);
}

/** One source's facts, from its statement; `undefined` when it is over its limits, fails or sends none. */
export async function sourceFacts(ctx: FacadeContext, req: RouteRequest, caller: Caller, source: string): Promise<SourceFacts | undefined> {
  const slot = await ctx.limits.acquire(source, caller);
  if (slot.refused) return undefined;
  try {
    const res = await ctx.gateway.exchange(source, { method: 'GET', path: 'metadata', headers: { accept: 'application/fhir+json' }, operation: 'capabilities' }, { signal: req.connectionSignal });
    if (res.status !== 200) return undefined;
    // What a source states (its parameters' names, its version) goes out under the one rewrite rule too.
    const statement = ctx.rewriter(source, `${req.baseUrl}/${source}`).resourceToFacade(JSON.parse(res.body.toString('utf8')) as Record<string, unknown>);
    return factsOf(statement);
  } catch {
    // A source that fails or sends no JSON contributes nothing; the statement names it.
    return undefined;
  } finally {
    slot.release();
  }
}

/** The served interactions and search parameters per type of a source's CapabilityStatement. */
function factsOf(statement: Record<string, unknown>): SourceFacts | undefined {
  if (statement.resourceType !== 'CapabilityStatement') return undefined;
  const rests = Array.isArray(statement.rest) ? (statement.rest as Record<string, unknown>[]) : [];
  const types = new Map<string, { interactions: Set<string>; params: Map<string, string> }>();
  let everything = false;
  for (const resource of rests.filter((r) => r?.mode === 'server').flatMap((r) => (Array.isArray(r.resource) ? (r.resource as Record<string, unknown>[]) : []))) {
    if (typeof resource?.type !== 'string') continue;
    if (resource.type === 'Patient' && listsEverything(resource.operation)) everything = true;
    const listed = (Array.isArray(resource.interaction) ? resource.interaction : []) as { code?: unknown }[];
    const interactions = new Set(listed.map((i) => i?.code).filter((c): c is string => (SERVED as readonly unknown[]).includes(c)));
    const params = new Map<string, string>();
    for (const p of (Array.isArray(resource.searchParam) ? resource.searchParam : []) as { name?: unknown; type?: unknown }[]) {
      if (typeof p?.name === 'string' && typeof p.type === 'string') params.set(p.name, p.type);
    }
    if (interactions.size > 0) types.set(resource.type, { interactions, params });
  }
  return { fhirVersion: typeof statement.fhirVersion === 'string' ? statement.fhirVersion : undefined, everything, types };
}

/** The operation `Patient/[id]/$everything`, as a statement lists it. */
const EVERYTHING = { name: 'everything', definition: 'http://hl7.org/fhir/OperationDefinition/Patient-everything' } as const;

/** True when a statement's `operation` list of Patient names `$everything` (by name or by its definition). */
function listsEverything(operations: unknown): boolean {
  return Array.isArray(operations) && (operations as { name?: unknown; definition?: unknown }[]).some((o) => o?.name === EVERYTHING.name || (typeof o?.definition === 'string' && o.definition.endsWith('/Patient-everything')));
}

/** The statement of the federated base at `base` over the sources `used` (with their `facts`). */
function federatedStatement(base: string, used: readonly string[], facts: readonly SourceFacts[], missing: readonly string[]): Record<string, unknown> {
  const names = [...new Set(facts.flatMap((f) => [...f.types.keys()]))].sort();
  const resource = names.map((type) => {
    const listing = facts.map((f) => f.types.get(type)).filter((t) => t !== undefined);
    const interactions = SERVED.filter((code) => listing.some((t) => t.interactions.has(code)));
    const searching = listing.filter((t) => t.interactions.has('search-type'));
    const params = searching.length === 0 ? [] : [...searching[0]!.params].filter(([param, kind]) => searching.every((t) => t.params.get(param) === kind));
    return {
      type,
      interaction: interactions.map((code) => ({ code })),
      ...(params.length === 0 ? {} : { searchParam: params.map(([param, kind]) => ({ name: param, type: kind })) }),
      // The federated base answers Patient/[id]/$everything over every source (patient-everything.ts).
      ...(type === 'Patient' ? { operation: [EVERYTHING] } : {}),
    };
  });
  const versions = new Set(facts.map((f) => f.fhirVersion));
  const fhirVersion = versions.size === 1 ? ([...versions][0] ?? DEFAULT_FHIR_VERSION) : DEFAULT_FHIR_VERSION;
  return {
    resourceType: 'CapabilityStatement',
    status: 'active',
    date: new Date().toISOString(),
    kind: 'instance',
    url: `${base}/metadata`,
    software: { name: 'fhirgate', version: VERSION },
    implementation: { description: `fhirgate federated base over ${used.length === 0 ? 'no source' : used.join(', ')}`, url: base },
    fhirVersion,
    format: ['json'],
    rest: [{
      mode: 'server',
      documentation: [
        'Search per type across every source the caller may search (entries tagged with meta.source), read or vread of the ids it issues (<source>.<id>), and Patient/[id]/$everything (or Patient/$everything?identifier=system|value) over every source where the patient resolves. Writes are never federated: send them to the source\'s base.',
        ...(missing.length === 0 ? [] : [`No statement from: ${missing.join(', ')}.`]),
      ].join(' '),
      security: FACADE_SECURITY,
      ...(resource.length === 0 ? {} : { resource }),
    }],
  };
}
