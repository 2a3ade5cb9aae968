/**
 * What a caller may see of a Bundle the facade answers (a search, a history, an `$operation` such as
 * `$everything`): the entries whose resource its scopes let it read (`r` or `s` on the type), held to
 * its patient compartment when it has one; OperationOutcome entries stay. `total` stays true: when
 * matches are dropped from the whole answer (one page, no `next` or `previous` link) it is lowered by
 * them, when they are dropped from one page of several it is removed (what the other pages lose is not
 * known); dropped `include` entries are not counted by `total` and do not change it.
 * @module
 */
import type { Caller } from './caller.js';
import { inCompartment } from './compartment.js';
import { scopeAccess } from './scopes.js';

/** True when the caller may see `resource`. */
export type Visibility = (resource: Record<string, unknown>) => boolean;

/**
 * What `caller` may see: `undefined` when it may see every resource (no compartment and a `system`/`user`
 * scope that reads every type), else the test of one resource. `bases` are the absolute bases a reference
 * may start with.
 */
export function visibility(caller: Caller, compartment: string | undefined, bases: readonly string[]): Visibility | undefined {
  const readsAll = scopeAccess(caller.scopes, '*', 'r') === 'open' || scopeAccess(caller.scopes, '*', 's') === 'open';
  if (compartment === undefined && readsAll) return undefined;
  // Per type, what the scopes give (a page holds few types and many resources).
  const known = new Map<string, ReturnType<typeof scopeAccess>>();
  return (resource) => {
    const type = resource.resourceType;
    if (type === 'OperationOutcome') return true;
    if (typeof type !== 'string') return false;
    let access = known.get(type);
    if (access === undefined && !known.has(type)) known.set(type, (access = scopeAccess(caller.scopes, type, 'r') ?? scopeAccess(caller.scopes, type, 's')));
    if (access === undefined) return false;
    return compartment === undefined ? access === 'open' : inCompartment(resource, compartment, bases);
  };
}

/** `bundle` with the entries `visible` refuses dropped and its `total` kept true (see the module). */
export function visibleEntries(bundle: Record<string, unknown>, visible: Visibility): Record<string, unknown> {
  if (!Array.isArray(bundle.entry)) return bundle;
  const entries = bundle.entry as { resource?: unknown; search?: { mode?: unknown } }[];
  const dropped = new Set(entries.filter((e) => typeof e.resource === 'object' && e.resource !== null && !visible(e.resource as Record<string, unknown>)));
  const kept = entries.filter((e) => !dropped.has(e));
  const droppedMatches = [...dropped].filter((e) => e.search?.mode !== 'include' && e.search?.mode !== 'outcome').length;
  if (droppedMatches === 0 || typeof bundle.total !== 'number') return { ...bundle, entry: kept };
  const links = Array.isArray(bundle.link) ? (bundle.link as { relation?: unknown }[]) : [];
  const paged = links.some((l) => l.relation === 'next' || l.relation === 'previous' || l.relation === 'prev');
  const { total, ...rest } = bundle;
  return paged ? { ...rest, entry: kept } : { ...rest, total: Math.max(0, (total as number) - droppedMatches), entry: kept };
}
