/**
 * What every part of a running sandbox shares.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultSwitches } from './faults.js';
import type { ResolvedOptions } from './options.js';
import type { RequestKind, StatsRecorder } from './stats.js';
import type { ResourceStore } from './store.js';
import type { TokenStore } from './token-store.js';

/** The state of one running sandbox, built once it listens (the URLs need the port). */
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

/** A resolved route of the sandbox's FHIR server or token endpoint. */
export interface SandboxRoute {
  readonly kind: RequestKind;
  /** True when no bearer token is needed (metadata, SMART configuration, token endpoint, errors). */
  readonly public: boolean;
  run(ctx: SandboxContext, req: IncomingMessage, res: ServerResponse, query: URLSearchParams): void | Promise<void>;
}
