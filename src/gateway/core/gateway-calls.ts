/**
 * What the public calls of an `AsyncFHIRGateway` run on: its connection pool, its sources, its FHIR
 * operations and the count of calls in flight, so that `close()` lets them finish. The gateway class
 * is the documented client; this is its machinery.
 * @module
 */
import { AgentPool } from '../../http/agent-pool.js';
import type { BulkHost } from '../bulk/index.js';
import { callOptions } from './call-options.js';
import type { CallOptions } from './call-options.js';
import { callFHIR } from './fhir-call.js';
import type { CallContext, CallScope } from './fhir-call.js';
import { exchange } from './exchange.js';
import type { FHIRExchangeRequest, FHIRExchangeResponse } from './exchange.js';
import { FHIROperations } from './fhir-operations.js';
import type { GatewayEvents } from '../gateway-face.js';
import { InFlightCalls } from './in-flight.js';
import type { GatewayOptions } from './options.js';
import { poolStatus } from './pool-status.js';
import type { PoolStatus } from './pool-status.js';
import type { SourceOptions } from './source-keys.js';
import { SourceRegistry } from './source-registry.js';
import { openSource, sourceSettings } from './source-settings.js';

/**
 * One gateway's pool, sources, operations and calls in flight.
 *
 * @example
 * ```ts
 * const calls = new GatewayCalls(checkGatewayOptions({}), new GatewayEvents({ events: false, dispatcher: undefined }));
 * calls.addSource('local', 'fhir://localhost:8080/fhir/');
 * const patient = await calls.run(undefined, (scope) => calls.ops.read('Patient', '1', 'local', scope, false));
 * ```
 */
export class GatewayCalls {
  /** The sources, in registration order. */
  readonly sources = new SourceRegistry();
  /** The FHIR operations over the pool, the sources and the gateway's events. */
  readonly ops: FHIROperations;
  readonly #options: GatewayOptions;
  readonly #events: GatewayEvents;
  readonly #pool: AgentPool;
  readonly #ctx: CallContext;
  readonly #inFlight = new InFlightCalls();

  constructor(options: GatewayOptions, events: GatewayEvents) {
    this.#options = options;
    this.#events = events;
    this.#pool = new AgentPool(options.pool);
    this.#ctx = { pool: this.#pool, maxResponseBytes: options.maxResponseBytes, retry: options.retry };
    this.ops = new FHIROperations(this.#ctx, this.sources, events);
  }

  /**
   * Throws `ERR_CLOSED` once {@link close} was called.
   *
   * @example
   * ```ts
   * calls.assertOpen();
   * ```
   */
  assertOpen(): void {
    this.#inFlight.assertOpen();
  }

  /**
   * Runs one public call: its options checked (`TypeError` naming the option), then the closed check
   * (`ERR_CLOSED`) and in-flight tracking for `close()`.
   *
   * @example
   * ```ts
   * await calls.run({ signal }, (scope) => calls.ops.delete('Patient', '1', 'epic', scope));
   * ```
   */
  run<T>(options: CallOptions | undefined, body: (scope: CallScope) => Promise<T>): Promise<T> {
    const scope = callOptions(options);
    return this.#inFlight.run(() => body(scope));
  }

  /**
   * Registers (or replaces) a source (see `AsyncFHIRGateway.addSource`); replacing one retires its old
   * origin's connections unless another source still uses that origin.
   *
   * @example
   * ```ts
   * calls.addSource('epic', 'fhir://fhir.example.org/r4/?client_id=app&client_secret=s3cret');
   * ```
   */
  addSource(name: string, connectionString: string, options: SourceOptions | undefined): void {
    this.assertOpen();
    if (typeof name !== 'string' || name === '' || name.length > 100) throw new TypeError('name must be a string of 1 to 100 characters');
    const settings = sourceSettings(connectionString, options, this.#options.timeoutMs);
    const old = this.sources.add(openSource(name, settings, this.#pool, this.#options.tokenStore));
    if (old !== undefined && !this.sources.all().some((s) => s.name !== name && s.origin === old.origin)) this.#pool.retire(old.origin);
  }

  /**
   * A raw exchange with a source on the call path (see `AsyncFHIRGateway.exchange`).
   *
   * @example
   * ```ts
   * const res = await calls.exchange('ehr', { method: 'GET', path: 'Patient/1' }, undefined);
   * ```
   */
  exchange(source: string, request: FHIRExchangeRequest, options: CallOptions | undefined): Promise<FHIRExchangeResponse> {
    return this.run(options, (scope) => exchange(this.#ctx, this.#events, this.sources.get(source), request, scope));
  }

  /**
   * The pool's status with each source's counts (see `AsyncFHIRGateway.getPoolStatus`).
   *
   * @example
   * ```ts
   * calls.poolStatus().limits.maxConnections; // 100
   * ```
   */
  poolStatus(): PoolStatus {
    return poolStatus(this.#pool.status(), this.sources.all());
  }

  /**
   * What a Bulk Data export needs of the gateway: each request is a call in flight (so `close()` waits
   * for it), a source is refused once closed (`ERR_CLOSED`), an event's payload is built only when
   * someone listens, and a line is at most `maxResponseBytes`.
   *
   * @example
   * ```ts
   * for await (const item of bulkExport(calls.bulkHost(), 'epic', { types: ['Patient'] })) use(item);
   * ```
   */
  bulkHost(): BulkHost {
    const inFlight = this.#inFlight;
    const events = this.#events;
    return {
      source: (name) => (inFlight.assertOpen(), this.sources.get(name)),
      call: (src, call) => inFlight.run(() => callFHIR(this.#ctx, src, call)),
      closed: () => inFlight.closed,
      emit: (name, payload) => {
        if (events.wants(name)) events.emit(name, payload());
      },
      maxLineBytes: this.#options.maxResponseBytes,
      maxConnections: this.poolStatus().limits.maxConnections,
    };
  }

  /**
   * Lets the calls in flight finish, then closes every socket. Idempotent.
   *
   * @example
   * ```ts
   * await calls.close();
   * ```
   */
  close(): Promise<void> {
    return this.#inFlight.close(() => this.#pool.close());
  }
}
