/**
 * SMART on FHIR scopes (App Launch 1.0 and 2.x): `<context>/<type>.<permissions>`, with v1's
 * `read`/`write`/`*` and v2's letters `c r u d s`. Both are accepted, as SMART asks of servers.
 * @module
 */

/** One permission letter of SMART v2: create, read, update, delete, search. */
export type ScopeLetter = 'c' | 'r' | 'u' | 'd' | 's';

/** A parsed resource scope. */
export interface Scope {
  readonly context: 'patient' | 'user' | 'system';
  /** A resource type name or `*`. */
  readonly type: string;
  readonly letters: ReadonlySet<ScopeLetter>;
}

const SCOPE = /^(patient|user|system)\/([A-Za-z]+|\*)\.(read|write|\*|[cruds]+)(\?.*)?$/;
const V1: Readonly<Record<string, string>> = { read: 'rs', write: 'cud', '*': 'cruds' };

/**
 * The resource scopes of a space-separated scope string. Other scopes (`openid`, `launch`, ...) are
 * not resource scopes and are left out, as are v2 scopes with a query (`?category=…`, not supported:
 * leaving them out denies rather than widens).
 */
export function parseScopes(scope: string): Scope[] {
  const scopes: Scope[] = [];
  for (const word of scope.split(/\s+/)) {
    const m = SCOPE.exec(word);
    if (m === null || m[4] !== undefined) continue;
    const letters = V1[m[3]!] ?? m[3]!;
    scopes.push({ context: m[1] as Scope['context'], type: m[2]!, letters: new Set(letters.split('') as ScopeLetter[]) });
  }
  return scopes;
}

/**
 * How `scopes` allow `letter` on `type`: `'open'` through a `system` or `user` scope, `'compartment'`
 * through `patient` scopes only, `undefined` not at all.
 */
export function scopeAccess(scopes: readonly Scope[], type: string, letter: ScopeLetter): 'open' | 'compartment' | undefined {
  let access: 'open' | 'compartment' | undefined;
  for (const s of scopes) {
    if ((s.type !== '*' && s.type !== type) || !s.letters.has(letter)) continue;
    if (s.context !== 'patient') return 'open';
    access = 'compartment';
  }
  return access;
}
