/**
 * The access token of one source: cached until shortly before it expires, fetched by one request
 * however many callers wait, dropped after a 401.
 * @module
 */
import { FhirgateError } from '../errors.js';
import { abortError } from '../http/signals.js';
import { checkDiscovered } from './discovered-endpoint.js';
import type { TokenEndpoint } from './discovered-endpoint.js';
import type { KeyValueStore } from '../lib/key-value-store.js';
import { fetchToken } from './fetch-token.js';
import { inSpan } from '../lib/trace-spans.js';
import type { Credentials, Send } from './fetch-token.js';
import { chooseAlgorithm, KeyRing } from './key-ring.js';
import type { AssertionAlg, PublicJWK } from './key-ring.js';
import { loadAssertionKey } from './load-key.js';
import type { AssertionKey } from './load-key.js';
import { discoverSmart } from './smart-discovery.js';
import { SharedTokenSlot, type SharedToken } from './shared-token.js';
import type { ClientSecretAuth, JWTAssertionAuth } from './source-config.js';

/** Options of {@link TokenManager}. */
export interface TokenManagerOptions {
  /** Sends the token request (the gateway's pool). */
  send: Send;
  /** Milliseconds before a token request fails. */
  timeoutMs: number;
  /** The clock, in milliseconds. Default `Date.now`. */
  now?: () => number;
  /**
   * Where to discover the token endpoint when the connection string has no `token_url`: the source's
   * FHIR base URL, and whether plain http may reach a non-loopback host (`allow_http`).
   */
  discovery?: { baseUrl: string; allowHttp: boolean };
  /**
   * A store shared with other replicas: the token is read from it before one is fetched, and one
   * replica fetches while the others wait for its token. Holds the access token and its refresh time
   * only. When the store fails, this replica fetches on its own; a fetched token is used before it is
   * shared. Default none (this process only).
   */
  store?: KeyValueStore;
  /** The name of the source the tokens are for, told in the `fhirgate:auth:token` messages (metrics count by it). */
  source?: string;
}

/**
 * Seconds before expiry at which a cached token is refreshed: 10 % of its lifetime, at most 60 s
 * (a 5-minute token is reused for 4.5 minutes, a 1-hour token for 59 minutes).
 */
export function refreshMargin(expiresIn: number): number {
  return Math.min(60, expiresIn / 10);
}

/**
 * Keeps one source's access token. A token without `expires_in` is kept until the FHIR server
 * answers 401. The keys of an assertion source (current and next) are read once, in the constructor
 * (`ERR_AUTH_KEY`). Without a `token_url`, the first token request discovers the endpoint
 * (`ERR_DISCOVERY` on failure, tried again at the next request); the answer is kept for the
 * manager's life.
 */
export class TokenManager {
  readonly #auth: ClientSecretAuth | JWTAssertionAuth;
  readonly #keys: KeyRing | undefined;
  readonly #send: Send;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  readonly #discovery: { baseUrl: string; allowHttp: boolean } | undefined;
  readonly #source: string | undefined;
  /** The token endpoint: from `token_url`, or once discovered. */
  #endpoint: TokenEndpoint | undefined;
  readonly #shared: SharedTokenSlot | undefined;
  #cached: SharedToken | undefined;
  #inFlight: Promise<string> | undefined;
  /** The last token a FHIR server refused: never taken back from the shared store. */
  #rejected: string | undefined;

  constructor(auth: ClientSecretAuth | JWTAssertionAuth, options: TokenManagerOptions) {
    this.#auth = auth;
    if (auth.kind === 'jwt_assertion') {
      const next = auth.nextKeyPath === undefined ? undefined : loadAssertionKey(auth.nextKeyPath, auth.nextKeyId);
      this.#keys = new KeyRing(loadAssertionKey(auth.keyPath, auth.keyId), next);
    }
    this.#send = options.send;
    this.#timeoutMs = options.timeoutMs;
    this.#now = options.now ?? Date.now;
    this.#discovery = options.discovery;
    this.#source = options.source;
    if (auth.tokenUrl !== undefined) this.#endpoint = { url: auth.tokenUrl, signingAlgs: undefined };
    else if (this.#discovery === undefined) throw new TypeError('TokenManager: options.discovery is needed when the connection string has no token_url');
    // Replicas share a token when they use the same credentials against the same server.
    const { clientId, tokenUrl, scope, audience } = auth;
    const where = tokenUrl ?? this.#discovery!.baseUrl;
    this.#shared = options.store === undefined ? undefined : new SharedTokenSlot(options.store, [where, clientId, scope, audience ?? '']);
  }

  /**
   * The public keys of an assertion source (current, then next), each with `kid`, `alg` and
   * `use: "sig"`; empty for a client secret source.
   */
  publicJWKS(): PublicJWK[] {
    return this.#keys?.publicJWKS(this.#endpoint?.signingAlgs) ?? [];
  }

  /**
   * Switches an assertion source to its next key (which signs from the next token request on) and
   * stages `staged`, if given, as the new next key. The cached access token stays valid.
   * `ERR_AUTH_KEY` when there is no next key, or when the token endpoint accepts no algorithm the next
   * key signs; nothing changes then.
   */
  rotateKey(staged: AssertionKey | undefined): { kid: string; alg: AssertionAlg } {
    const keys = this.#keys;
    if (keys === undefined) throw new FhirgateError('ERR_AUTH_KEY', 'this source signs no JWT assertion: there is no key to rotate');
    const next = keys.next;
    const accepted = this.#endpoint?.signingAlgs;
    if (next !== undefined && chooseAlgorithm(next, accepted) === undefined) {
      throw new FhirgateError('ERR_AUTH_KEY', `the next key "${next.kid.slice(0, 100)}" signs no algorithm the token endpoint accepts`);
    }
    keys.rotate(staged);
    return { kid: keys.current.kid, alg: keys.signer(accepted)!.alg };
  }

  /**
   * A valid access token: the cached one, or a fresh one (one request for all callers). `signal`
   * stops this caller's wait only; the shared request goes on for the others.
   */
  token(signal?: AbortSignal): Promise<string> {
    const cached = this.current();
    if (cached !== undefined) return Promise.resolve(cached);
    // One span `fhirgate.token` (SMART discovery and the token request inside it), in the trace of the call that needed it.
    this.#inFlight ??= inSpan('fhirgate.token', {}, () => this.#refresh());
    return signal === undefined ? this.#inFlight : raceSignal(this.#inFlight, signal);
  }

  /**
   * The cached token while it is fresh, else `undefined` (then call {@link TokenManager.token}): the
   * common path of a call, without a promise.
   */
  current(): string | undefined {
    const cached = this.#cached;
    return cached !== undefined && this.#now() < cached.refreshAt ? cached.token : undefined;
  }

  /**
   * Drops the cached token when it is `token` (so that many requests failing with the same token cause
   * one refresh, not many).
   */
  invalidate(token: string): void {
    if (this.#cached?.token === token) this.#cached = undefined;
    this.#rejected = token;
  }

  async #refresh(): Promise<string> {
    try {
      this.#cached = (await this.#fromStore()) ?? (await this.#fetch());
      return this.#cached.token;
    } finally {
      this.#inFlight = undefined;
    }
  }

  /** Reads and checks the source's SMART configuration (the caller is the one refresh in flight). */
  async #discover(): Promise<TokenEndpoint> {
    const { baseUrl, allowHttp } = this.#discovery!;
    const found = await discoverSmart(baseUrl, this.#send, { timeoutMs: this.#timeoutMs });
    const method = this.#auth.kind === 'jwt_assertion' ? 'private_key_jwt' : this.#auth.method;
    const secretOrigins = [new URL(baseUrl).origin, ...(this.#auth.tokenOrigin === undefined ? [] : [this.#auth.tokenOrigin])];
    return checkDiscovered(found, { method, allowHttp, keys: this.#keys, secretOrigins });
  }

  #credentials(endpoint: TokenEndpoint): Credentials {
    const auth = this.#auth;
    if (auth.kind === 'client_secret') return { auth };
    const signer = this.#keys!.signer(endpoint.signingAlgs);
    if (signer === undefined) throw new FhirgateError('ERR_AUTH_KEY', `the key "${this.#keys!.current.kid.slice(0, 100)}" signs no algorithm the token endpoint accepts`);
    return { auth, key: signer };
  }

  /** The shared token, or the one another replica fetched while we waited; `undefined`: fetch it here. */
  async #fromStore(): Promise<SharedToken | undefined> {
    const slot = this.#shared;
    if (slot === undefined) return undefined;
    try {
      const claimed = (await slot.read(this.#now(), this.#rejected)) ?? (await slot.claim(this.#now, this.#timeoutMs, this.#rejected));
      return claimed === 'fetch' ? undefined : claimed;
    } catch {
      return undefined; // the store is down: this replica fetches on its own
    }
  }

  async #fetch(): Promise<SharedToken> {
    let started: number;
    let answer: Awaited<ReturnType<typeof fetchToken>>;
    try {
      const endpoint = this.#endpoint ?? (this.#endpoint = await this.#discover());
      started = this.#now();
      answer = await fetchToken(this.#credentials(endpoint), this.#send, { timeoutMs: this.#timeoutMs, nowMs: started, tokenUrl: endpoint.url, source: this.#source });
    } catch (error) {
      await this.#shared?.release().catch(() => undefined);
      throw error;
    }
    const lifetime = answer.expiresIn;
    const fresh = { token: answer.accessToken, refreshAt: lifetime === undefined ? Infinity : started + (lifetime - refreshMargin(lifetime)) * 1000 };
    // The token is used at once; sharing it is off the request path (a store that is down or slow
    // costs the other replicas a fetch of their own, never this caller a wait).
    void this.#shared?.write(fresh, this.#now()).catch(() => undefined);
    return fresh;
  }
}

function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortError(signal, 'waiting for an access token'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal, 'waiting for an access token'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}
