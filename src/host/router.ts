/**
 * The host's router: static and `:param` segments per method.
 *
 * Trailing-slash policy: a trailing slash is not significant. `/x/` and `/x` are the same route, answered
 * in place (no redirect); the root `/` is the empty path. Empty segments elsewhere (`/a//b`) are kept and
 * match nothing but an empty segment. Segments are percent-decoded before matching; a malformed escape
 * is a client error (`ERR_BAD_REQUEST`, 400), never a crash. A static segment wins over a parameter at
 * the same position, with backtracking when the static branch leads nowhere.
 * @module
 */
import { FhirgateError } from '../errors.js';

/** The outcome of {@link Router.match}. */
export type RouteMatch<H> =
  | { readonly kind: 'found'; readonly handler: H; readonly params: Record<string, string>; readonly pattern: string }
  | { readonly kind: 'method-not-allowed'; readonly allow: readonly string[] }
  | { readonly kind: 'not-found' };

/** A router: add routes, match requests. `HEAD` matches the `GET` route of the same path. */
export interface Router<H> {
  /** Adds a route. Throws `ERR_DUPLICATE_ROUTE` when the method and path are already taken. */
  add(method: string, path: string, handler: H): void;
  /** Matches a raw (still percent-encoded) path without its query. Throws `ERR_BAD_REQUEST` on a bad escape. */
  match(method: string, rawPath: string): RouteMatch<H>;
}

interface Leaf<H> {
  readonly handler: H;
  readonly names: readonly string[];
  readonly pattern: string;
}

interface Node<H> {
  readonly statics: Map<string, Node<H>>;
  param: Node<H> | undefined;
  readonly leaves: Map<string, Leaf<H>>;
}

const newNode = <H>(): Node<H> => ({ statics: new Map(), param: undefined, leaves: new Map() });

/**
 * Splits a path into segments under the trailing-slash policy: `'/a/b/'` → `['a', 'b']`, `'/'` and `''`
 * → `[]`.
 */
export function splitPath(path: string): string[] {
  const parts = path.split('/');
  const first = firstSegment(parts);
  return parts.slice(first, endSegment(parts, first));
}

/** Where the segments of `path.split('/')` start: after the empty part before a leading slash. */
function firstSegment(parts: readonly string[]): number {
  return parts.length > 1 && parts[0] === '' ? 1 : 0;
}

/** Where they end: before the empty part after a trailing slash (`''` and `'/'` have none at all). */
function endSegment(parts: readonly string[], first: number): number {
  const last = parts.length - 1;
  return last >= first && parts[last] === '' ? last : parts.length;
}

function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new FhirgateError('ERR_BAD_REQUEST', 'the request path has a malformed percent-encoding', { status: 400 });
  }
}

/** The one router implementation: a segment trie, one leaf per method. */
export class TrieRouter<H> implements Router<H> {
  readonly #root: Node<H> = newNode();

  add(method: string, path: string, handler: H): void {
    const names: string[] = [];
    let node = this.#root;
    for (const segment of splitPath(path)) {
      if (segment.startsWith(':')) {
        const name = segment.slice(1);
        if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new TypeError(`route "${path}": invalid parameter name "${segment}"`);
        if (names.includes(name)) throw new TypeError(`route "${path}": parameter "${name}" appears twice`);
        names.push(name);
        node.param ??= newNode();
        node = node.param;
      } else {
        let next = node.statics.get(segment);
        if (next === undefined) node.statics.set(segment, (next = newNode()));
        node = next;
      }
    }
    const upper = method.toUpperCase();
    if (node.leaves.has(upper)) throw new FhirgateError('ERR_DUPLICATE_ROUTE', `route ${upper} ${path} is already registered`);
    node.leaves.set(upper, { handler, names, pattern: path === '' ? '/' : path });
  }

  match(method: string, rawPath: string): RouteMatch<H> {
    // One split and no copy of the parts (a CPU profile of the host showed `splitPath`'s slice and
    // split as the router's main cost): the segments are parts[first, end).
    const parts = rawPath.split('/');
    const first = firstSegment(parts);
    const end = endSegment(parts, first);
    if (rawPath.includes('%')) for (let i = first; i < end; i++) parts[i] = decodeSegment(parts[i] as string);
    const values: string[] = [];
    const node = find(this.#root, parts, first, end, values);
    if (node === undefined) return NOT_FOUND;
    const leaf = node.leaves.get(method === 'HEAD' ? 'GET' : method);
    if (leaf === undefined) {
      const allow = [...node.leaves.keys()];
      if (allow.includes('GET')) allow.push('HEAD');
      return { kind: 'method-not-allowed', allow: allow.sort() };
    }
    const params: Record<string, string> = Object.create(null);
    const { names } = leaf;
    for (let i = 0; i < names.length; i++) params[names[i] as string] = values[i] as string;
    return { kind: 'found', handler: leaf.handler, params, pattern: leaf.pattern };
  }
}

/** The one not-found answer, shared (it carries nothing per request). */
const NOT_FOUND = Object.freeze({ kind: 'not-found' as const });

/** Depth-first search over `segments[index, end)`, static before parameter; `values` collects parameter values along the way. */
function find<H>(node: Node<H>, segments: readonly string[], index: number, end: number, values: string[]): Node<H> | undefined {
  if (index === end) return node.leaves.size > 0 ? node : undefined;
  const segment = segments[index] as string;
  const fixed = node.statics.get(segment);
  const viaStatic = fixed === undefined ? undefined : find(fixed, segments, index + 1, end, values);
  if (viaStatic !== undefined || node.param === undefined || segment === '') return viaStatic;
  values.push(segment);
  const viaParam = find(node.param, segments, index + 1, end, values);
  if (viaParam === undefined) values.pop();
  return viaParam;
}
