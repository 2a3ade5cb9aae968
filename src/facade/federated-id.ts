/**
 * The ids the federated base issues: `<source>.<id>` (`ehr.123`), a FHIR id that names the source, so
 * that `{federated}/[type]/[id]` can be read back without asking every source (two sources may both hold
 * `Patient/123`). A resource the federated base hands out carries that id, and its relative references
 * (`Patient/123`, which mean the source's patient) are qualified the same way, so that everything in a
 * federated answer resolves against the federated base. An id that cannot be qualified (over 64
 * characters, a source name with `_`, or one that would read back as another source's) is left as the
 * source gave it, with its references made absolute at the source's facade base. A search at the
 * federated base may name such ids (`Observation?subject=Patient/ehr.123`): each source gets them as its
 * own, and a source none of whose values can match is not asked.
 * @module
 */
import { isFHIRId, isResourceType } from '../fhir/index.js';
import { isJSONObject } from '../lib/json-object.js';

/** Between the source's name and the source's id. */
const SEPARATOR = '.';

/** A relative reference `Type/id` or `Type/id/_history/vid`. */
const RELATIVE = /^([A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})(\/_history\/[A-Za-z0-9\-.]{1,64})?$/;

/** A source and the id it gave, read out of a federated id. */
export interface SourceId {
  readonly source: string;
  readonly id: string;
}

/**
 * The source and id a federated id names, or `undefined`. Of several source names that fit (`a` and
 * `a.b` for `a.b.1`), the longest wins; {@link federatedId} never issues an id that reads back otherwise.
 */
export function resolveFederatedId(federated: string, sources: readonly string[]): SourceId | undefined {
  let found: SourceId | undefined;
  for (const source of sources) {
    if (!federated.startsWith(source + SEPARATOR) || (found !== undefined && found.source.length >= source.length)) continue;
    const id = federated.slice(source.length + SEPARATOR.length);
    if (isFHIRId(id)) found = { source, id };
  }
  return found;
}

/** The federated id of `id` in `source`, or `undefined` when none would read back to it. */
function federatedId(source: string, id: string, sources: readonly string[]): string | undefined {
  const federated = `${source}${SEPARATOR}${id}`;
  if (!isFHIRId(federated)) return undefined;
  const back = resolveFederatedId(federated, sources);
  return back?.source === source && back.id === id ? federated : undefined;
}

/** Where a source's resource is shown: its source, that source's facade base, and every served source. */
export interface FederatedView {
  readonly source: string;
  readonly sourceBase: string;
  readonly sources: readonly string[];
}

/**
 * A source's resource as the federated base shows it: `id` federated (when it can be), `meta.source` the
 * source's facade base, relative references federated (or absolute at the source's base). Contained
 * resources keep their ids (`#ref` is local to the resource). A resource (an object) is changed in place
 * and returned: it must be the facade's own (parsed from an answer, not yet shown); anything else is
 * shown as a copy of its elements.
 */
export function federatedResource(resource: Record<string, unknown>, view: FederatedView): Record<string, unknown> {
  const id = typeof resource.id === 'string' ? federatedId(view.source, resource.id, view.sources) : undefined;
  const changed = qualify(resource, view);
  // Not an object (a malformed entry): an array whose references changed shown as that array, else a copy of its elements.
  const body = changed || isJSONObject(resource) ? resource : { ...(resource as object) };
  if (id !== undefined) body.id = id;
  // The resource's own `meta` (an object of its parsed answer) takes `source` in place: a copy per
  // resource was 1.5 % of a federated search's CPU (Node 20, 16 connections, `--cpu-prof`).
  const meta = body.meta;
  if (isJSONObject(meta)) meta.source = view.sourceBase;
  else body.meta = { ...(typeof meta === 'object' && meta !== null ? meta : {}), source: view.sourceBase };
  return body;
}

/** Every `reference` element under `value` made to resolve against the federated base, in place; true when one changed. */
function qualify(value: unknown, view: FederatedView): boolean {
  if (typeof value !== 'object' || value === null) return false;
  let changed = false;
  if (Array.isArray(value)) {
    // A string in an array is no `reference` element.
    for (const v of value) if (typeof v === 'object' && qualify(v, view)) changed = true;
    return changed;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const v = record[key];
    if (typeof v === 'object') {
      if (qualify(v, view)) changed = true;
    } else if (key === 'reference' && typeof v === 'string') {
      const federated = federatedReference(v, view);
      if (federated !== v) [record[key], changed] = [federated, true];
    }
  }
  return changed;
}

/** A relative reference of `view.source` (`Patient/123`) as the federated base shows it (`Patient/ehr.123`, or absolute at the source's base). */
export function federatedReference(ref: string, view: FederatedView): string {
  const match = RELATIVE.exec(ref);
  if (match === null || !isResourceType(match[1]!)) return ref;
  const [, type, id, history = ''] = match;
  const federated = federatedId(view.source, id!, view.sources);
  return federated === undefined ? `${view.sourceBase}/${ref}` : `${type}/${federated}${history}`;
}

/**
 * A federated search's query as `source` gets it: a value that names a federated id (`Patient/ehr.123`
 * in any parameter; a bare `ehr.123` in `_id` or a parameter with a type modifier, `subject:Patient`)
 * becomes the source's own id there and is dropped elsewhere, where it cannot match. `undefined` when a
 * parameter keeps no value for `source`: nothing there can match. Parameters with other modifiers
 * (`:not`, `:missing`, …) go as they are.
 */
export function sourceQuery(query: URLSearchParams, source: string, sources: readonly string[]): URLSearchParams | undefined {
  const out = new URLSearchParams();
  for (const [name, value] of query) {
    const [param = '', modifier] = name.split(':');
    const bare = (param === '_id' && modifier === undefined) || (modifier !== undefined && isResourceType(modifier));
    // A value without a separator names no federated id (every one holds it): it goes as it is.
    if ((modifier !== undefined && !bare) || !value.includes(SEPARATOR)) {
      out.append(name, value);
      continue;
    }
    const kept = value.split(/(?<!\\),/).flatMap((part) => {
      const named = namedId(part, bare, sources);
      if (named === undefined) return [part];
      return named.source === source ? [named.local] : [];
    });
    if (kept.length === 0) return undefined;
    out.append(name, kept.join(','));
  }
  return out;
}

/** The source and local form of a search value naming a federated id (`Type/src.id`, or `src.id` when `bare`). */
function namedId(part: string, bare: boolean, sources: readonly string[]): { source: string; local: string } | undefined {
  const slash = part.indexOf('/');
  const type = slash < 0 ? undefined : part.slice(0, slash);
  if (type !== undefined && !isResourceType(type)) return undefined;
  if (type === undefined && !bare) return undefined;
  const found = resolveFederatedId(type === undefined ? part : part.slice(slash + 1), sources);
  return found === undefined ? undefined : { source: found.source, local: type === undefined ? found.id : `${type}/${found.id}` };
}
