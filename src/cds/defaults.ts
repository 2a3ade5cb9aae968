/**
 * The defaults of every CDS option, in one frozen object.
 * @module
 */

/**
 * Defaults of `new CDSHooksService()` and of its client authentication (`auth`).
 *
 * @example
 * ```ts
 * import { CDS_DEFAULTS } from 'fhirgate/cds';
 * console.log(CDS_DEFAULTS.bodyLimit, CDS_DEFAULTS.auth.algorithms); // 1048576 ['RS384', 'ES384']
 * ```
 */
export const CDS_DEFAULTS = Object.freeze({
  /** Largest accepted request body: 1 MiB. */
  bodyLimit: 1024 * 1024,
  /** Time-out of one prefetch fetch: 10 s. */
  prefetchTimeoutMs: 10_000,
  /** Largest accepted prefetch answer: 10 MiB. */
  prefetchMaxBytes: 10 * 1024 * 1024,
  auth: Object.freeze({
    algorithms: Object.freeze(['RS384', 'ES384']),
    clockToleranceSeconds: 60,
    maxLifetimeSeconds: 300,
    jwksCacheSeconds: 300,
    jwksCooldownSeconds: 30,
    jwksTimeoutMs: 5000,
    replayCacheSize: 100_000,
  }),
});
