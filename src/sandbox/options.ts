/**
 * The options of `startSandbox`, checked and copied once.
 * @module
 */
import { createPublicKey, KeyObject, type JsonWebKey } from 'node:crypto';
import { isFHIRId, isResourceType, type Resource } from '../fhir/index.js';
import { keysOf, numberOption, onlyKnownKeys } from '../lib/options.js';

/** A client that authenticates with a shared secret (`client_secret_basic` or `client_secret_post`). */
export interface SandboxSecretClient {
  clientId: string;
  /** The secret it authenticates with (HTTP Basic or in the form body). */
  clientSecret: string;
}

/** A client that authenticates with a JWT assertion (`private_key_jwt`) signed by the key's private half. */
export interface SandboxKeyClient {
  clientId: string;
  /** The public key (a private key is accepted too; only its public half is kept). */
  publicKey: KeyObject | JsonWebKey;
}

/**
 * A client that authenticates with a JWT assertion (`private_key_jwt`) verified against its JSON Web
 * Key Set, by the assertion's `kid`: a JWKS URL (fetched at every assertion, no cache, so that a
 * rotation shows at once; an assertion whose `jku` names another URL is refused), or a set given here.
 *
 * @example
 * ```ts
 * await startSandbox({ clients: [{ clientId: 'backend', jwks: 'http://127.0.0.1:8000/.well-known/jwks.json' }] });
 * ```
 */
export interface SandboxJWKSClient {
  clientId: string;
  /** The JWKS URL (http or https), or the set itself. */
  jwks: string | { keys: readonly JsonWebKey[] };
}

/**
 * A registered OAuth 2.0 client of the sandbox's token endpoint.
 *
 * @example
 * ```ts
 * import { generateKeyPairSync } from 'node:crypto';
 * import type { SandboxClient } from 'fhirgate/sandbox';
 * const clients: SandboxClient[] = [
 *   { clientId: 'app', clientSecret: 's3cret' },
 *   { clientId: 'backend', publicKey: generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey },
 *   { clientId: 'rotating', jwks: 'http://127.0.0.1:8000/.well-known/jwks.json' },
 * ];
 * ```
 */
export type SandboxClient = SandboxSecretClient | SandboxKeyClient | SandboxJWKSClient;

/**
 * Which data set the sandbox starts with.
 *
 * @example
 * ```ts
 * await startSandbox({ seed: [{ resourceType: 'Patient', id: 'p1' }] });
 * ```
 */
export type SandboxSeed = boolean | 'a' | 'b' | readonly Resource[];

/**
 * Options of `startSandbox`.
 *
 * @example
 * ```ts
 * const options: SandboxOptions = { port: 0, seed: 'b', open: false, tokenLifetimeSeconds: 60, bodyLimit: 65536 };
 * ```
 */
export interface SandboxOptions {
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /**
   * Initial data: `true` or `'a'` (default) the built-in data set, `'b'` a second, different one,
   * `false` nothing, or your own resources (each with a valid `resourceType`; an `id` is kept).
   */
  seed?: SandboxSeed;
  /** OAuth clients. Default: one secret client `{ clientId: 'fhirgate-demo', clientSecret: 'demo-secret' }`. */
  clients?: readonly SandboxClient[];
  /** When true the FHIR endpoints need no bearer token. Default false. */
  open?: boolean;
  /** Lifetime of issued access tokens, in seconds. Default 300. */
  tokenLifetimeSeconds?: number;
  /** Largest accepted request body, in bytes. Default 1 MiB. */
  bodyLimit?: number;
  /** Bulk Data export: status requests answered 202 ("in progress") before the manifest. Default 1. */
  exportPolls?: number;
  /** Bulk Data export: the `Retry-After` of those 202 answers, in seconds. Default 1. */
  exportRetryAfterSeconds?: number;
}

/**
 * The keys of {@link SandboxOptions} and of a client (those of every kind of client: it takes exactly
 * one of `clientSecret`, `publicKey` and `jwks`); any other is refused with the nearest of these.
 */
export const SANDBOX_OPTION_KEYS = Object.freeze({
  options: keysOf<SandboxOptions>({ port: true, host: true, seed: true, clients: true, open: true, tokenLifetimeSeconds: true, bodyLimit: true, exportPolls: true, exportRetryAfterSeconds: true }),
  client: keysOf<SandboxSecretClient & SandboxKeyClient & SandboxJWKSClient>({ clientId: true, clientSecret: true, publicKey: true, jwks: true }),
});

/** A registered client after validation. */
export interface ResolvedClient {
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly publicKey?: KeyObject;
  /** A JWKS URL, or public JWKs. */
  readonly jwks?: string | readonly JsonWebKey[];
}

/** Validated, copied options. */
export interface ResolvedOptions {
  readonly port: number;
  readonly host: string;
  readonly seed: 'a' | 'b' | false | readonly Resource[];
  readonly clients: ReadonlyMap<string, ResolvedClient>;
  readonly open: boolean;
  readonly tokenLifetimeSeconds: number;
  readonly bodyLimit: number;
  readonly exportPolls: number;
  readonly exportRetryAfterSeconds: number;
}

/** The defaults of every sandbox option. */
export const DEFAULTS = Object.freeze({
  port: 0,
  host: '127.0.0.1',
  open: false,
  tokenLifetimeSeconds: 300,
  bodyLimit: 1024 * 1024,
  exportPolls: 1,
  exportRetryAfterSeconds: 1,
  client: Object.freeze({ clientId: 'fhirgate-demo', clientSecret: 'demo-secret' }),
});

function resolveClient(value: unknown, index: number): ResolvedClient {
  const where = (field = ''): string => `startSandbox: options.clients[${index}]${field}`;
  if (typeof value !== 'object' || value === null) throw new TypeError(`${where()} must be an object`);
  onlyKnownKeys(value, SANDBOX_OPTION_KEYS.client, where());
  const { clientId, clientSecret, publicKey, jwks } = value as Record<string, unknown>;
  if (typeof clientId !== 'string' || clientId === '') throw new TypeError(`${where('.clientId')} must be a non-empty string`);
  if ([clientSecret, publicKey, jwks].filter((v) => v !== undefined).length !== 1) {
    throw new TypeError(`${where()} needs exactly one of clientSecret, publicKey and jwks`);
  }
  if (jwks !== undefined) return { clientId, jwks: resolveJwks(jwks, where('.jwks')) };
  if (clientSecret !== undefined) {
    if (typeof clientSecret !== 'string' || clientSecret === '') {
      throw new TypeError(`${where('.clientSecret')} must be a non-empty string`);
    }
    return { clientId, clientSecret };
  }
  try {
    if (publicKey instanceof KeyObject) {
      if (publicKey.type === 'secret') throw new TypeError('a secret key');
      return { clientId, publicKey: publicKey.type === 'public' ? publicKey : createPublicKey(publicKey) };
    }
    return { clientId, publicKey: createPublicKey({ key: publicKey as JsonWebKey, format: 'jwk' }) };
  } catch (cause) {
    throw new TypeError(`${where('.publicKey')} must be an asymmetric KeyObject or a JWK`, { cause });
  }
}

function resolveJwks(jwks: unknown, where: string): string | readonly JsonWebKey[] {
  if (typeof jwks === 'string') {
    if (!URL.canParse(jwks) || !/^https?:$/.test(new URL(jwks).protocol)) throw new TypeError(`${where} must be an http(s) URL or { keys: [...] }`);
    return jwks;
  }
  const keys = (jwks as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'object' || k === null)) throw new TypeError(`${where} must be an http(s) URL or { keys: [...] }`);
  return Object.freeze(keys.map((k) => structuredClone(k) as JsonWebKey));
}

function resolveSeed(seed: unknown): ResolvedOptions['seed'] {
  if (seed === undefined || seed === true || seed === 'a') return 'a';
  if (seed === false || seed === 'b') return seed;
  if (!Array.isArray(seed)) throw new TypeError('startSandbox: options.seed must be a boolean, "a", "b" or an array of resources');
  return seed.map((r: unknown, i) => {
    const res = r as { resourceType?: unknown; id?: unknown } | null;
    if (typeof res !== 'object' || res === null || typeof res.resourceType !== 'string' || !isResourceType(res.resourceType)) {
      throw new TypeError(`startSandbox: options.seed[${i}] is not a FHIR resource`);
    }
    if (res.id !== undefined && (typeof res.id !== 'string' || !isFHIRId(res.id))) {
      throw new TypeError(`startSandbox: options.seed[${i}].id is not a FHIR id`);
    }
    return structuredClone(r) as Resource;
  });
}

/** Checks and copies the options of `startSandbox`; misuse throws `TypeError`/`RangeError` naming the option. */
export function resolveOptions(options: SandboxOptions = {}): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('startSandbox: options must be an object');
  onlyKnownKeys(options, SANDBOX_OPTION_KEYS.options, 'startSandbox: options');
  const { host = DEFAULTS.host, open = DEFAULTS.open, clients = [DEFAULTS.client] } = options;
  if (typeof host !== 'string' || host === '') throw new TypeError('startSandbox: options.host must be a non-empty string');
  if (typeof open !== 'boolean') throw new TypeError('startSandbox: options.open must be a boolean');
  if (!Array.isArray(clients)) throw new TypeError('startSandbox: options.clients must be an array');
  const map = new Map<string, ResolvedClient>();
  clients.forEach((c: unknown, i: number) => {
    const client = resolveClient(c, i);
    if (map.has(client.clientId)) throw new TypeError(`startSandbox: options.clients repeats clientId "${client.clientId}"`);
    map.set(client.clientId, client);
  });
  return {
    port: numberOption(options.port, 'startSandbox: options.port', DEFAULTS.port, { integer: true, min: 0, max: 65535 }),
    host,
    seed: resolveSeed(options.seed),
    clients: map,
    open,
    tokenLifetimeSeconds: numberOption(options.tokenLifetimeSeconds, 'startSandbox: options.tokenLifetimeSeconds', DEFAULTS.tokenLifetimeSeconds, { integer: true, min: 1, max: 86400 * 365 }),
    bodyLimit: numberOption(options.bodyLimit, 'startSandbox: options.bodyLimit', DEFAULTS.bodyLimit, { integer: true, min: 1, max: 2 ** 31 - 1 }),
    exportPolls: numberOption(options.exportPolls, 'startSandbox: options.exportPolls', DEFAULTS.exportPolls, { integer: true, min: 0, max: 1000 }),
    exportRetryAfterSeconds: numberOption(options.exportRetryAfterSeconds, 'startSandbox: options.exportRetryAfterSeconds', DEFAULTS.exportRetryAfterSeconds, { integer: true, min: 0, max: 3600 }),
  };
}
