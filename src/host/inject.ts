/**
 * Dependency tokens for custom routes: `getGateway(name)`, `getAllGateways()`, `getApp()`. A route lists
 * them under `inject`; the host resolves them for every request into `ctx.deps`.
 *
 * When a name cannot resolve: `app.listen()` rejects with `ERR_UNKNOWN_DEPENDENCY` naming the route and the
 * gateway (so a typo fails at start-up); if the app is served through `app.handler` without `listen()`,
 * the request answers 500 and the log line `dependency not resolvable` names the route and the gateway.
 * @module
 */
import { FhirgateError } from '../errors.js';
import type { ServiceAPI } from './app.js';

const RESOLVE: unique symbol = Symbol.for('fhirgate.host.inject') as never;

/** A dependency token: resolved per request to a `T`. */
export interface Token<T> {
  readonly [RESOLVE]: (app: ServiceAPI) => T;
  /** The gateway name the token needs, when it needs one (checked by `listen()`). */
  readonly gateway?: string;
}

/** The `ctx.deps` type for an `inject` map. */
export type Deps<I> = { readonly [K in keyof I]: I[K] extends Token<infer T> ? T : never };

/** A map of dependency tokens, as given in a route's `inject` option. */
export type InjectMap = Readonly<Record<string, Token<unknown>>>;

/**
 * A token for the gateway registered under `name` (its class name, or the `name` given to
 * `registerGateway`). Passing the class itself gives the token its type.
 *
 * @example
 * ```ts
 * app.get('/summary/:id', { inject: { fhir: getGateway(AsyncFHIRGateway) } },
 *   async (ctx) => ({ patient: await ctx.deps.fhir.read('Patient', ctx.params.id) }));
 * ```
 */
// `any` by default: untyped unless a type or class is given
export function getGateway<G = any>(name: string | (abstract new (...args: never[]) => G)): Token<G> {
  const key = typeof name === 'string' ? name : name.name;
  if (key === '') throw new TypeError('getGateway "name" must be a non-empty string or a named class');
  return {
    gateway: key,
    [RESOLVE]: (app) => {
      const gateway = app.gateways.get(key);
      if (gateway === undefined) throw new FhirgateError('ERR_UNKNOWN_DEPENDENCY', `no gateway is registered as "${key}"`);
      return gateway as G;
    },
  };
}

/**
 * A token for every registered gateway, keyed by name.
 *
 * @example
 * ```ts
 * app.get('/sources', { inject: { all: getAllGateways() } }, (ctx) => [...ctx.deps.all.keys()]);
 * ```
 */
// `any` by default: gateways of several classes
export function getAllGateways<G = any>(): Token<ReadonlyMap<string, G>> {
  return { [RESOLVE]: (app) => app.gateways as ReadonlyMap<string, G> };
}

/**
 * A token for the app itself.
 *
 * @example
 * ```ts
 * app.get('/about', { inject: { app: getApp() } }, (ctx) => ({ gateways: [...ctx.deps.app.gateways.keys()] }));
 * ```
 */
export function getApp(): Token<ServiceAPI> {
  return { [RESOLVE]: (app) => app };
}

/** Resolves every token of `inject` into a null-prototype object. Throws what a token throws. */
export function resolveDeps<I extends InjectMap>(inject: I, app: ServiceAPI): Deps<I> {
  const deps: Record<string, unknown> = Object.create(null);
  for (const [key, token] of Object.entries(inject)) deps[key] = token[RESOLVE](app);
  return deps as Deps<I>;
}

/** True when `value` is a dependency token. */
export function isToken(value: unknown): value is Token<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as Partial<Token<unknown>>)[RESOLVE] === 'function';
}
