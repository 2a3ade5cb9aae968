/**
 * The access token of one source: cached until shortly before it expires, fetched by one request
 * however many callers wait, dropped after a 401.
 * @module
 */
import { abortError } from '../http/signals.js';
import { fetchToken } from './fetch-token.js';
import type { Credentials, Send } from './fetch-token.js';
import { loadAssertionKey } from './load-key.js';
import type { ClientSecretAuth, JWTAssertionAuth } from './source-config.js';

/**
 * Options of {@link TokenManager}.
 *
 * @example
 * ```ts
 * new TokenManager(auth, { send: (u, o) => request(u, o), timeoutMs: 30_000 });
 * ```
 */
export interface TokenManagerOptions {
  /** Sends the token request (the gateway's pool). */
  send: Send;
  /** Milliseconds before a token request fails. */
  timeoutMs: number;
  /** The clock, in milliseconds. Default `Date.now`. */
  now?: () => number;
}

/**
 * Seconds before expiry at which a cached token is refreshed: 10 % of its lifetime, at most 60 s
 * (a 5-minute token is reused for 4.5 minutes, a 1-hour token for 59 minutes).
 *
 * @example
 * ```ts
 * refreshMargin(300); // 30
 * refreshMargin(3600); // 60
 * ```
 */
export function refreshMargin(expiresIn: number): number {
  return Math.min(60, expiresIn / 10);
}

/**
 * Keeps one source's access token. A token without `expires_in` is kept until the FHIR server
 * answers 401. The key of an assertion source is read once, in the constructor (`ERR_AUTH_KEY`).
 *
 * @example
 * ```ts
 * const tokens = new TokenManager(auth, { send: (u, o) => pool.request(u, o), timeoutMs: 30_000 });
 * const token = await tokens.token(signal);
 * // after a 401 with that token:
 * tokens.invalidate(token);
 * ```
 */
export class TokenManager {
  readonly #credentials: Credentials;
  readonly #send: Send;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  #cached: { token: string; refreshAt: number } | undefined;
  #inFlight: Promise<string> | undefined;

  constructor(auth: ClientSecretAuth | JWTAssertionAuth, options: TokenManagerOptions) {
    this.#credentials = auth.kind === 'jwt_assertion' ? { auth, key: loadAssertionKey(auth.keyPath, auth.keyId) } : { auth };
    this.#send = options.send;
    this.#timeoutMs = options.timeoutMs;
    this.#now = options.now ?? Date.now;
  }

  /**
   * A valid access token: the cached one, or a fresh one (one request for all callers). `signal`
   * stops this caller's wait only; the shared request goes on for the others.
   *
   * @example
   * ```ts
   * headers.authorization = `Bearer ${await tokens.token(signal)}`;
   * ```
   */
  token(signal?: AbortSignal): Promise<string> {
    const cached = this.current();
    if (cached !== undefined) return Promise.resolve(cached);
    this.#inFlight ??= this.#refresh();
    return signal === undefined ? this.#inFlight : raceSignal(this.#inFlight, signal);
  }

  /**
   * The cached token while it is fresh, else `undefined` (then call {@link TokenManager.token}): the
   * common path of a call, without a promise.
   *
   * @example
   * ```ts
   * const token = tokens.current() ?? (await tokens.token(signal));
   * ```
   */
  current(): string | undefined {
    const cached = this.#cached;
    return cached !== undefined && this.#now() < cached.refreshAt ? cached.token : undefined;
  }

  /**
   * Drops the cached token when it is `token` (so that many requests failing with the same token cause
   * one refresh, not many).
   *
   * @example
   * ```ts
   * if (res.status === 401) tokens.invalidate(token);
   * ```
   */
  invalidate(token: string): void {
    if (this.#cached?.token === token) this.#cached = undefined;
  }

  async #refresh(): Promise<string> {
    try {
      const started = this.#now();
      const answer = await fetchToken(this.#credentials, this.#send, { timeoutMs: this.#timeoutMs, nowMs: started });
      const lifetime = answer.expiresIn;
      const refreshAt = lifetime === undefined ? Infinity : started + (lifetime - refreshMargin(lifetime)) * 1000;
      this.#cached = { token: answer.accessToken, refreshAt };
      return answer.accessToken;
    } finally {
      this.#inFlight = undefined;
    }
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
