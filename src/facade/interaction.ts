/**
 * A request under a source's base, read as a FHIR RESTful interaction (R4 http.html): what the
 * policy decides on, what the audit records, and what goes upstream.
 * @module
 */
import { isFHIRId, isResourceType } from '../fhir/index.js';
import type { ScopeLetter } from './scopes.js';

/** The FHIR R4 interactions the facade answers. */
export type InteractionName =
  | 'capabilities' | 'read' | 'vread' | 'search-type' | 'search-system' | 'history-instance' | 'history-type' | 'history-system'
  | 'create' | 'update' | 'patch' | 'delete' | 'batch' | 'transaction' | 'operation';

/** One interaction. */
export interface Interaction {
  readonly name: InteractionName;
  readonly type?: string;
  readonly id?: string;
  readonly versionId?: string;
  /** `$everything`, for an operation. */
  readonly operation?: string;
  /** A conditional create/update/patch/delete (by query or `If-None-Exist`). */
  readonly conditional: boolean;
}

/**
 * The interaction of `method` on the path segments under a source's base, or `undefined` when FHIR
 * has none there (answered 404). `batch` vs `transaction` is decided on the body later.
 */
export function interactionOf(method: string, segments: readonly string[], hasQuery: boolean, ifNoneExist: boolean): Interaction | undefined {
  const [a, b, c, d] = segments;
  switch (segments.length) {
    case 0:
      if (method === 'GET') return it('search-system');
      return method === 'POST' ? it('batch') : undefined;
    case 1:
      if (a === 'metadata') return method === 'GET' ? it('capabilities') : undefined;
      if (a === '_history') return method === 'GET' ? it('history-system') : undefined;
      if (a === '_search') return method === 'POST' ? it('search-system') : undefined;
      if (op(a) !== undefined) return method === 'GET' || method === 'POST' ? it('operation', { operation: a }) : undefined;
      if (!isResourceType(a!)) return undefined;
      if (method === 'GET') return it('search-type', { type: a });
      if (method === 'POST') return it('create', { type: a, conditional: ifNoneExist });
      return hasQuery && WRITES[method] !== undefined ? it(WRITES[method], { type: a, conditional: true }) : undefined;
    case 2:
      if (!isResourceType(a!)) return undefined;
      if (b === '_search') return method === 'POST' ? it('search-type', { type: a }) : undefined;
      if (b === '_history') return method === 'GET' ? it('history-type', { type: a }) : undefined;
      if (op(b) !== undefined) return method === 'GET' || method === 'POST' ? it('operation', { type: a, operation: b }) : undefined;
      if (!isFHIRId(b!)) return undefined;
      if (method === 'GET') return it('read', { type: a, id: b });
      return WRITES[method] === undefined ? undefined : it(WRITES[method], { type: a, id: b });
    case 3:
      if (!isResourceType(a!) || !isFHIRId(b!)) return undefined;
      if (c === '_history') return method === 'GET' ? it('history-instance', { type: a, id: b }) : undefined;
      return op(c) !== undefined && (method === 'GET' || method === 'POST') ? it('operation', { type: a, id: b, operation: c }) : undefined;
    case 4:
      if (!isResourceType(a!) || !isFHIRId(b!) || c !== '_history' || !isFHIRId(d!)) return undefined;
      return method === 'GET' ? it('vread', { type: a, id: b, versionId: d }) : undefined;
    default:
      return undefined;
  }
}

/** `name` when it names an `$operation`. */
function op(name: string | undefined): string | undefined {
  return name !== undefined && /^\$[A-Za-z][A-Za-z0-9-]*$/.test(name) ? name : undefined;
}

function it(name: InteractionName, rest?: Partial<Interaction>): Interaction {
  return rest === undefined ? { name, conditional: false } : { name, conditional: false, ...rest };
}

/**
 * The SMART permission letter an interaction needs (`undefined`: none; capabilities, operations and
 * bundles are decided otherwise).
 */
export function letterOf(name: InteractionName): ScopeLetter | undefined {
  return LETTERS[name];
}

/** The write interaction of a method on `[type]/[id]` (or conditionally on `[type]?query`). */
const WRITES: Readonly<Record<string, InteractionName>> = { PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

const LETTERS: Partial<Record<InteractionName, ScopeLetter>> = {
  read: 'r', vread: 'r', 'history-instance': 'r',
  'search-type': 's', 'search-system': 's', 'history-type': 's', 'history-system': 's',
  create: 'c', update: 'u', patch: 'u', delete: 'd',
};
