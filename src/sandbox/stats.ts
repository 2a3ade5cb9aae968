/**
 * What the sandbox saw: requests, token requests and sockets, so that tests can assert what a
 * server received. Never holds a secret, token or assertion.
 * @module
 */

/** What a request was for (`bundle`: a transaction or batch posted to the base). */
export type RequestKind =
  | 'read' | 'vread' | 'search' | 'create' | 'update' | 'delete' | 'bundle' | 'metadata' | 'token' | 'other';

/** How a token request authenticated its client. */
export type TokenAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';

/**
 * Request counters.
 *
 * @example
 * ```ts
 * sandbox.stats.requests.byKind.search; // searches seen
 * ```
 */
export interface RequestCounts {
  readonly total: number;
  /** By HTTP method (`GET`, `POST`, ...). */
  readonly byMethod: Readonly<Record<string, number>>;
  /** By what the request was for. */
  readonly byKind: Readonly<Partial<Record<RequestKind, number>>>;
}

/**
 * The counters and last-seen values of a sandbox. Read-only; `reset()` zeroes them.
 *
 * @example
 * ```ts
 * console.log(sandbox.stats.lastAuthMethod); // 'private_key_jwt'
 * console.log(sandbox.stats.maxOpenSockets <= 20); // true
 * ```
 */
export interface SandboxStats {
  /** Every HTTP request, FHIR and token alike (faulted and dropped ones included). */
  readonly requests: RequestCounts;
  /** Requests to the token endpoint. */
  readonly tokenRequests: number;
  /** Access tokens issued. */
  readonly tokensIssued: number;
  /** Token requests refused. */
  readonly tokenErrors: number;
  /** The client authentication method of the last token request. */
  readonly lastAuthMethod: TokenAuthMethod | undefined;
  /** The client id of the last token request, when it named one. */
  readonly lastClientId: string | undefined;
  /** The `scope` parameter of the last token request, when it had one. */
  readonly lastScope: string | undefined;
  /** The `audience` parameter of the last token request, when it had one. */
  readonly lastAudience: string | undefined;
  /** The `kid` in the header of the last client assertion, when the last token request had one. */
  readonly lastKeyId: string | undefined;
  /** TCP connections accepted. */
  readonly socketsAccepted: number;
  /** TCP connections open now. */
  readonly openSockets: number;
  /** The greatest number of simultaneously open connections seen since start or `reset()`. */
  readonly maxOpenSockets: number;
  /** Zeroes the counters and forgets the last-seen values (`maxOpenSockets` restarts at `openSockets`). */
  reset(): void;
}

/** What one token request showed. */
export interface TokenRequestFacts {
  readonly authMethod: TokenAuthMethod;
  readonly clientId: string | undefined;
  readonly scope: string | undefined;
  readonly audience: string | undefined;
  /** The `kid` of the client assertion, when there was one with a `kid`. */
  readonly keyId?: string | undefined;
}

/** The sandbox's own, writable side of {@link SandboxStats}. */
export class StatsRecorder implements SandboxStats {
  #total = 0;
  #byMethod: Record<string, number> = {};
  #byKind: Partial<Record<RequestKind, number>> = {};
  #tokenRequests = 0;
  #tokensIssued = 0;
  #tokenErrors = 0;
  #last: TokenRequestFacts | undefined;
  #socketsAccepted = 0;
  #openSockets = 0;
  #maxOpenSockets = 0;

  get requests(): RequestCounts {
    return Object.freeze({ total: this.#total, byMethod: { ...this.#byMethod }, byKind: { ...this.#byKind } });
  }
  get tokenRequests(): number { return this.#tokenRequests; }
  get tokensIssued(): number { return this.#tokensIssued; }
  get tokenErrors(): number { return this.#tokenErrors; }
  get lastAuthMethod(): TokenAuthMethod | undefined { return this.#last?.authMethod; }
  get lastClientId(): string | undefined { return this.#last?.clientId; }
  get lastScope(): string | undefined { return this.#last?.scope; }
  get lastAudience(): string | undefined { return this.#last?.audience; }
  get lastKeyId(): string | undefined { return this.#last?.keyId; }
  get socketsAccepted(): number { return this.#socketsAccepted; }
  get openSockets(): number { return this.#openSockets; }
  get maxOpenSockets(): number { return this.#maxOpenSockets; }

  /** Counts one HTTP request. */
  countRequest(method: string, kind: RequestKind): void {
    this.#total++;
    this.#byMethod[method] = (this.#byMethod[method] ?? 0) + 1;
    this.#byKind[kind] = (this.#byKind[kind] ?? 0) + 1;
    if (kind === 'token') this.#tokenRequests++;
  }

  /** Records what a token request showed and whether a token was issued. */
  recordToken(facts: TokenRequestFacts, issued: boolean): void {
    this.#last = Object.freeze({ ...facts });
    if (issued) this.#tokensIssued++;
    else this.#tokenErrors++;
  }

  /** Counts an accepted connection. */
  socketOpened(): void {
    this.#socketsAccepted++;
    this.#openSockets++;
    this.#maxOpenSockets = Math.max(this.#maxOpenSockets, this.#openSockets);
  }

  /** Counts a closed connection. */
  socketClosed(): void {
    this.#openSockets--;
  }

  reset(): void {
    this.#total = this.#tokenRequests = this.#tokensIssued = this.#tokenErrors = this.#socketsAccepted = 0;
    this.#byMethod = {};
    this.#byKind = {};
    this.#last = undefined;
    this.#maxOpenSockets = this.#openSockets;
  }
}
