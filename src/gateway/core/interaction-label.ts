/**
 * The FHIR RESTful interaction of a call to a source (`read`, `search`, `create`, ...), from its method and
 * its path below the source's base: one of a fixed set, so that metrics label by it and never by an id or a URL.
 * @module
 */
import type { UpstreamLabel } from '../../http/request-options.js';
import type { UpstreamInteraction as Interaction } from '../../lib/upstream-interactions.js';
import type { Source } from './source-registry.js';

/** The interaction on `[base]/[type]` (`search` is a GET of the type, `create` a POST, `update`/`delete` conditional). */
const ON_TYPE: Readonly<Record<string, Interaction>> = { GET: 'search', HEAD: 'search', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };
/** The interaction on `[base]/[type]/[id]`. */
const ON_INSTANCE: Readonly<Record<string, Interaction>> = { GET: 'read', HEAD: 'read', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/**
 * The interaction of `method` on `path` for a source whose base path is `basePath` (no trailing slash):
 * `[base]` POST is `batch` (or transaction), `[base]/metadata` `capabilities`, any `$name` segment
 * `operation`, `_history` `history` (`vread` with a version), `_search` `search`; a path outside the
 * base is `other`.
 */
export function interactionOf(method: string, basePath: string, path: string): Interaction {
  if (path !== basePath && !path.startsWith(`${basePath}/`)) return 'other';
  const segments = path.slice(basePath.length + 1).split('/').filter((s) => s !== '');
  if (segments.some((s) => s.startsWith('$'))) return 'operation';
  const [first, second, third] = segments;
  switch (segments.length) {
    case 0:
      return method === 'POST' ? 'batch' : method === 'GET' ? 'search' : 'other';
    case 1:
      if (first === 'metadata') return 'capabilities';
      if (first === '_history') return 'history';
      if (first === '_search') return 'search';
      return ON_TYPE[method] ?? 'other';
    case 2:
      if (second === '_search') return 'search';
      if (second === '_history') return 'history';
      return ON_INSTANCE[method] ?? 'other';
    case 3:
      return third === '_history' ? 'history' : method === 'GET' ? 'search' : 'other';
    case 4:
      return third === '_history' ? 'vread' : 'other';
    default:
      return 'other';
  }
}

/**
 * The label of a call of `method` to `path` at `source`, for the diagnostics channels. Its interaction
 * is worked out when a message is published, not per call: with nobody subscribed (no metrics) it is
 * never read, and working it out (a split of the path) was 1% of a facade read's CPU on Node 24
 * (`node --cpu-prof`, `interactionOf`).
 */
export function upstreamLabel(source: Source, method: string, path: string): UpstreamLabel {
  return new CallLabel(source, method, path);
}

/** An {@link UpstreamLabel} whose interaction is found on first read. */
class CallLabel implements UpstreamLabel {
  readonly source: string;
  readonly #basePath: string;
  readonly #method: string;
  readonly #path: string;
  #interaction: Interaction | undefined;

  constructor(source: Source, method: string, path: string) {
    this.source = source.name;
    this.#basePath = source.base.pathname;
    this.#method = method;
    this.#path = path;
  }

  get interaction(): Interaction {
    return (this.#interaction ??= interactionOf(this.#method, this.#basePath, this.#path));
  }
}
