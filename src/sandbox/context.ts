/**
 * What every part of a running sandbox shares.
 * @module
 */
import type { FaultSwitches } from './faults.js';
import type { ResolvedOptions } from './options.js';
import type { StatsRecorder } from './stats.js';
import type { ResourceStore } from './store.js';
import type { TokenStore } from './token-store.js';

/**
 * The state of one running sandbox, built once it listens (the URLs need the port).
 *
 * @example
 * ```ts
 * const ctx: SandboxContext = { options, store, tokens, stats, faults, fhirBase, tokenUrl, signal };
 * ```
 */
export interface SandboxContext {
  readonly options: ResolvedOptions;
  readonly store: ResourceStore;
  readonly tokens: TokenStore;
  readonly stats: StatsRecorder;
  readonly faults: FaultSwitches;
  /** `http://127.0.0.1:PORT/fhir/R4`, no trailing slash. */
  readonly fhirBase: string;
  /** `http://127.0.0.1:PORT/oauth2/token`. */
  readonly tokenUrl: string;
  /** Aborted when the sandbox closes (ends fault latency waits). */
  readonly signal: AbortSignal;
}
