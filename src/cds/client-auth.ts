/**
 * Verification of the CDS client's JWT (CDS Hooks 2.0 §"Trusting CDS Clients"): an allowlist of issuers,
 * keys from a static JWKS or from allowlisted `jku` URLs, `aud` equal to the exact URL called, and a `jti`
 * replay cache. Failures carry a short reason for the log; callers answer one generic 401.
 * @module
 */
import type { ProxyAgents } from '../http/proxy-agents.js';
import type { JsonWebKey } from 'node:crypto';
import { FhirgateError, isFhirgateError } from '../errors.js';
import { decodeJWT, verifyJWT } from '../lib/jwt/verify-jwt.js';
import type { JWTHeader } from '../lib/jwt/types.js';
import { CDS_DEFAULTS } from './defaults.js';
import { JWKSCache } from '../http/jwks-cache.js';
import { numberOption, onlyKnownKeys } from '../lib/options.js';
import { checkStore } from '../lib/key-value-store.js';
import { ReplayCache, type ReplayVerdict } from './replay-cache.js';
import { StoreReplayCheck } from './replay-store.js';
import { CDS_OPTION_KEYS, type CDSClient, type ClientAuthOptions, type TrustedIssuer } from './types.js';

const SUPPORTED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512'];
const REQUIRED_CLAIMS = ['iss', 'aud', 'exp', 'iat', 'jti'] as const;
const DEFAULTS = CDS_DEFAULTS.auth;

type Settings = Omit<Required<ClientAuthOptions>, 'issuers' | 'replayStore'>;

function copyIssuer(value: unknown, i: number): TrustedIssuer {
  const name = `auth.issuers[${i}]`;
  const issuer = value as Partial<TrustedIssuer> | null;
  if (typeof issuer === 'object' && issuer !== null) onlyKnownKeys(issuer, CDS_OPTION_KEYS.issuer, name);
  if (typeof issuer?.issuer !== 'string' || issuer.issuer === '') throw new TypeError(`${name}.issuer must be a non-empty string`);
  const keys = issuer.jwks?.keys;
  if (issuer.jwks !== undefined && !Array.isArray(keys)) throw new TypeError(`${name}.jwks must be a JWK Set ({ keys: [...] })`);
  const urls = issuer.jwksUrls ?? [];
  if (!Array.isArray(urls) || urls.some((u) => typeof u !== 'string' || !/^https?:\/\//.test(u) || !URL.canParse(u))) {
    throw new TypeError(`${name}.jwksUrls must be an array of http(s) URLs`);
  }
  if (keys === undefined && urls.length === 0) throw new TypeError(`${name} needs jwks or jwksUrls`);
  const copy: TrustedIssuer = { issuer: issuer.issuer, jwksUrls: [...urls] };
  if (keys !== undefined) copy.jwks = { keys: keys.map((k) => ({ ...k })) };
  return copy;
}

function settings(options: ClientAuthOptions): Settings {
  const algorithms = options.algorithms ?? DEFAULTS.algorithms;
  if (!Array.isArray(algorithms) || algorithms.length === 0 || algorithms.some((a) => !SUPPORTED_ALGORITHMS.includes(a))) {
    throw new RangeError(`auth.algorithms must be a non-empty list among ${SUPPORTED_ALGORITHMS.join(', ')}`);
  }
  const num = (name: keyof Omit<Settings, 'algorithms'>, min = 0): number => numberOption(options[name], `options.auth.${name}`, DEFAULTS[name], { min });
  return {
    algorithms: [...algorithms],
    clockToleranceSeconds: num('clockToleranceSeconds'),
    maxLifetimeSeconds: num('maxLifetimeSeconds', 1),
    jwksCacheSeconds: num('jwksCacheSeconds'),
    jwksCooldownSeconds: num('jwksCooldownSeconds'),
    jwksTimeoutMs: num('jwksTimeoutMs', 1),
    replayCacheSize: num('replayCacheSize', 1),
  };
}

function reject(reason: string): never {
  throw new FhirgateError('ERR_UNAUTHORIZED', reason);
}

/** Verifies `Authorization: Bearer <JWT>` headers of CDS clients. */
export class ClientAuth {
  readonly #issuers: ReadonlyMap<string, TrustedIssuer>;
  readonly #settings: Settings;
  readonly #jwks: JWKSCache;
  readonly #replays: ReplayCache;
  readonly #sharedReplays: StoreReplayCheck | undefined;

  /** `proxy`: the agents of the service's outbound proxy, for the JWKS fetches. */
  constructor(options: ClientAuthOptions, proxy?: ProxyAgents) {
    if (typeof options !== 'object' || options === null) throw new TypeError('auth must be an object');
    onlyKnownKeys(options, CDS_OPTION_KEYS.auth, 'auth');
    if (!Array.isArray(options.issuers) || options.issuers.length === 0) throw new TypeError('auth.issuers must be a non-empty array');
    this.#issuers = new Map(options.issuers.map((value, i) => {
      const issuer = copyIssuer(value, i);
      return [issuer.issuer, issuer] as const;
    }));
    this.#settings = settings(options);
    this.#jwks = new JWKSCache({
      ttlMs: this.#settings.jwksCacheSeconds * 1000,
      cooldownMs: this.#settings.jwksCooldownSeconds * 1000,
      timeoutMs: this.#settings.jwksTimeoutMs,
      ...(proxy === undefined ? {} : { proxy }),
    });
    this.#replays = new ReplayCache(this.#settings.replayCacheSize);
    if (options.replayStore !== undefined) checkStore(options.replayStore, 'options.auth.replayStore');
    this.#sharedReplays = options.replayStore === undefined ? undefined : new StoreReplayCheck(options.replayStore);
  }

  /**
   * Verifies an `Authorization` header for a call to `audience` (the exact URL called). Rejects with
   * `FhirgateError('ERR_UNAUTHORIZED' | 'ERR_JWT', <reason>)`, or `ERR_STORE_UNAVAILABLE` when the
   * shared replay store failed; never put the reason in a response.
   */
  async verify(authorization: string | undefined, audience: string): Promise<CDSClient> {
    const match = /^Bearer +([A-Za-z0-9\-_.~+/]+=*)$/i.exec(authorization ?? '');
    const token = match?.[1] ?? reject('no bearer token');
    const { payload } = decodeJWT(token);
    const trusted = typeof payload.iss === 'string' ? this.#issuers.get(payload.iss) : undefined;
    if (trusted === undefined) reject('unknown issuer');
    const s = this.#settings;
    const verified = await verifyJWT(token, {
      algorithms: s.algorithms,
      key: (header) => this.#key(trusted, header),
      issuer: trusted.issuer,
      audience,
      clockToleranceSeconds: s.clockToleranceSeconds,
      maxLifetimeSeconds: s.maxLifetimeSeconds,
      requiredClaims: REQUIRED_CLAIMS,
    });
    const { jti, exp, sub, tenant } = verified.payload;
    if (typeof jti !== 'string' || jti === '') reject('jti not a string');
    const verdict = await this.#remember(`${trusted.issuer} ${jti}`, (exp as number) + s.clockToleranceSeconds);
    if (verdict === 'replayed') reject('jti replayed');
    if (verdict === 'full') reject('replay cache full');
    const client: CDSClient = { issuer: trusted.issuer };
    if (typeof sub === 'string') client.subject = sub;
    if (typeof tenant === 'string') client.tenant = tenant;
    return client;
  }

  /** Forgets fetched key sets and remembered token ids. */
  clear(): void {
    this.#jwks.clear();
    this.#replays.clear();
  }

  /**
   * The shared store when there is one, else the local cache. A store that fails refuses the token
   * (fail closed) with `ERR_STORE_UNAVAILABLE`, which callers answer 503, not 401: the client's
   * credentials are fine, the check cannot be made now.
   */
  async #remember(id: string, expiresAt: number): Promise<ReplayVerdict> {
    if (this.#sharedReplays === undefined) return this.#replays.remember(id, expiresAt);
    try {
      return await this.#sharedReplays.remember(id, expiresAt);
    } catch (cause) {
      const why = isFhirgateError(cause, 'ERR_STORE_UNAVAILABLE') ? cause.message : 'the store rejected';
      throw new FhirgateError('ERR_STORE_UNAVAILABLE', `replay store unavailable: ${why}`, { cause });
    }
  }

  async #key(trusted: TrustedIssuer, header: JWTHeader): Promise<JsonWebKey | undefined> {
    const kid = typeof header.kid === 'string' && header.kid !== '' ? header.kid : reject('kid missing');
    const urls = trusted.jwksUrls ?? [];
    if (header.jku !== undefined) {
      if (typeof header.jku !== 'string' || !urls.includes(header.jku)) reject('jku not allowed');
      return this.#jwks.find(header.jku, kid);
    }
    const local = trusted.jwks?.keys.find((k) => k.kid === kid);
    if (local !== undefined) return local;
    for (const url of urls) {
      const key = await this.#jwks.find(url, kid);
      if (key !== undefined) return key;
    }
    return undefined;
  }
}
