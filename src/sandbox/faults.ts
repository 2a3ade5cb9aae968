/**
 * Fault switches that make the sandbox misbehave on purpose, for tests: latency, failing or dropping
 * the next requests, closing sockets, expiring tokens. Faults aim at FHIR requests unless told
 * otherwise (`{ target: 'token' }` or `'all'`).
 * @module
 */
import { keysOf, onlyKnownKeys } from '../lib/options.js';

/** Which requests a fault applies to. */
export type FaultTarget = 'fhir' | 'token' | 'all';

/**
 * Options of {@link SandboxFaults.failNext}.
 *
 * @example
 * ```ts
 * sandbox.faults.failNext(1, 429, { retryAfter: 2, body: 'slow down', target: 'all' });
 * ```
 */
export interface FailNextOptions {
  /** A `Retry-After` header: seconds (integer) or an HTTP date. */
  retryAfter?: number | string;
  /** The body: a string is sent as text/plain, anything else as JSON. Default an OperationOutcome. */
  body?: unknown;
  /** Default `'fhir'`. */
  target?: FaultTarget;
}

/**
 * The fault switches of a sandbox.
 *
 * @example
 * ```ts
 * sandbox.faults.dropNext(1);
 * sandbox.faults.failNext(1, 503, { target: 'token' });
 * ```
 */
export interface SandboxFaults {
  /** Delays every targeted request by `ms` milliseconds before it is handled (0 turns it off). */
  latency(ms: number, options?: { target?: FaultTarget }): void;
  /** Answers the next `n` targeted requests with `status` (400–599) instead of handling them. */
  failNext(n: number, status: number, options?: FailNextOptions): void;
  /** Destroys the socket of the next `n` targeted requests without answering. */
  dropNext(n: number, options?: { target?: FaultTarget }): void;
  /** Destroys every open socket now. */
  closeSockets(): void;
  /** Makes every access token issued so far expired. */
  expireTokens(): void;
  /** Turns latency, pending failures and pending drops off. */
  reset(): void;
}

/** What to do with one request, decided by the faults. */
export type FaultAction =
  | { readonly kind: 'fail'; readonly status: number; readonly retryAfter?: string; readonly body?: unknown }
  | { readonly kind: 'drop' };

interface Pending {
  remaining: number;
  readonly target: FaultTarget;
  readonly action: FaultAction;
}

/** The keys of the faults' options: `failNext`'s, and `latency`'s and `dropNext`'s; any other is refused with the nearest of these. */
export const FAULT_OPTION_KEYS = Object.freeze({
  failNext: keysOf<FailNextOptions>({ retryAfter: true, body: true, target: true }),
  target: keysOf<NonNullable<Parameters<SandboxFaults['latency']>[1]>>({ target: true }),
});

function targetOf(options: { target?: unknown } | undefined, method: 'latency' | 'failNext' | 'dropNext'): FaultTarget {
  if (typeof options === 'object' && options !== null) onlyKnownKeys(options, method === 'failNext' ? FAULT_OPTION_KEYS.failNext : FAULT_OPTION_KEYS.target, `faults.${method}: options`);
  const target = options?.target ?? 'fhir';
  if (target !== 'fhir' && target !== 'token' && target !== 'all') {
    throw new TypeError(`faults.${method}: options.target must be 'fhir', 'token' or 'all'`);
  }
  return target;
}

function count(n: unknown, method: string): number {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw new RangeError(`faults.${method}: "n" must be a positive integer`);
  return n;
}

function retryAfterHeader(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return String(value);
  if (typeof value === 'string' && value !== '') return value;
  throw new TypeError('faults.failNext: options.retryAfter must be a non-negative integer or an HTTP date string');
}

/** The sandbox's fault switches. `hooks` do what needs the server (closing sockets, expiring tokens). */
export class FaultSwitches implements SandboxFaults {
  readonly #hooks: { readonly closeSockets: () => void; readonly expireTokens: () => void };
  #latency: { ms: number; target: FaultTarget } = { ms: 0, target: 'fhir' };
  #pending: Pending[] = [];

  constructor(hooks: { readonly closeSockets: () => void; readonly expireTokens: () => void }) {
    this.#hooks = hooks;
  }

  latency(ms: number, options?: { target?: FaultTarget }): void {
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) throw new RangeError('faults.latency: "ms" must be a non-negative number');
    this.#latency = { ms, target: targetOf(options, 'latency') };
  }

  failNext(n: number, status: number, options: FailNextOptions = {}): void {
    if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599) {
      throw new RangeError('faults.failNext: "status" must be an integer from 400 to 599');
    }
    const retryAfter = retryAfterHeader(options.retryAfter);
    const action: FaultAction = {
      kind: 'fail',
      status,
      ...(retryAfter === undefined ? {} : { retryAfter }),
      ...(options.body === undefined ? {} : { body: structuredClone(options.body) }),
    };
    this.#pending.push({ remaining: count(n, 'failNext'), target: targetOf(options, 'failNext'), action });
  }

  dropNext(n: number, options?: { target?: FaultTarget }): void {
    this.#pending.push({ remaining: count(n, 'dropNext'), target: targetOf(options, 'dropNext'), action: { kind: 'drop' } });
  }

  closeSockets(): void {
    this.#hooks.closeSockets();
  }

  expireTokens(): void {
    this.#hooks.expireTokens();
  }

  reset(): void {
    this.#latency = { ms: 0, target: 'fhir' };
    this.#pending = [];
  }

  /** The latency to add to a request of this kind, in milliseconds. */
  latencyFor(kind: 'fhir' | 'token'): number {
    const { ms, target } = this.#latency;
    return target === 'all' || target === kind ? ms : 0;
  }

  /** Takes the fault that applies to the next request of this kind, if any (faults apply in the order set). */
  take(kind: 'fhir' | 'token'): FaultAction | undefined {
    const index = this.#pending.findIndex((p) => p.target === 'all' || p.target === kind);
    const pending = this.#pending[index];
    if (pending === undefined) return undefined;
    if (--pending.remaining === 0) this.#pending.splice(index, 1);
    return pending.action;
  }
}
