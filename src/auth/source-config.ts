/**
 * What a parsed `fhir://` connection string says about a source.
 * @module
 */

/** How a client authenticates with a client secret (RFC 6749 §2.3.1). */
export type ClientSecretMethod = 'client_secret_basic' | 'client_secret_post';

/** The parts every OAuth 2.0 flow shares. */
interface OAuthCommon {
  readonly clientId: string;
  /**
   * The token endpoint from `token_url`; `undefined` when the connection string has none: the gateway
   * then discovers it from the source's `.well-known/smart-configuration` (see `discoverSmart`).
   */
  readonly tokenUrl: string | undefined;
  /**
   * `token_origin`: one more origin (besides the FHIR server's own) that a discovered token endpoint
   * may be on when the source sends a client secret; `undefined`: the FHIR server's origin only.
   */
  readonly tokenOrigin: string | undefined;
  readonly scope: string;
  /** Sent as the `audience` form parameter when set. */
  readonly audience: string | undefined;
}

/** Client credentials with a shared secret. */
export interface ClientSecretAuth extends OAuthCommon {
  readonly kind: 'client_secret';
  readonly clientSecret: string;
  readonly method: ClientSecretMethod;
}

/** Client credentials with a signed JWT assertion (SMART Backend Services). */
export interface JWTAssertionAuth extends OAuthCommon {
  readonly kind: 'jwt_assertion';
  /** Path of the private key file (PEM or JWK). */
  readonly keyPath: string;
  /** The `kid` header; default: the key's RFC 7638 thumbprint. */
  readonly keyId: string | undefined;
  /** The `jku` header (the client's JWKS URL, always https), when set. */
  readonly jku: string | undefined;
  /** Path of the next private key (`next_key_path`): published in the JWKS, signs after a rotation. */
  readonly nextKeyPath: string | undefined;
  /** The next key's `kid` (`next_key_id`); default: its JWK `kid`, else its RFC 7638 thumbprint. */
  readonly nextKeyId: string | undefined;
}

/** How a source authenticates: a secret, an assertion, or nothing (a public server). */
export type SourceAuth = ClientSecretAuth | JWTAssertionAuth | undefined;

/**
 * A parsed connection string. Holds a secret: keep it private, never log or serialise it.
 *
 * @example
 * ```ts
 * const config: SourceConfig = parseConnectionString('fhir://localhost:8080/fhir/');
 * config.baseUrl; // 'http://localhost:8080/fhir'
 * ```
 */
export interface SourceConfig {
  /** The FHIR base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** The origin of {@link baseUrl}: credentials go nowhere else. */
  readonly origin: string;
  readonly auth: SourceAuth;
  /** The per-request time-out from the `timeout` parameter, in milliseconds. */
  readonly timeoutMs: number | undefined;
  /** `allow_http=true`: plain http is allowed to a non-loopback host (base, token endpoint, discovered one). */
  readonly allowHttp: boolean;
  /** The TLS files of `ca_path`, `cert_path`, `key_path`, `key_passphrase_path`; absent when none is given. */
  readonly tlsFiles?: TLSFiles;
}

/**
 * Paths of a source's TLS files, read when the source is added (and again when `fhirgate serve --workers`
 * replaces its workers on SIGHUP): a private CA trusted for this source only, a client certificate and
 * its key, the file holding the key's passphrase.
 */
export interface TLSFiles {
  readonly caPath: string | undefined;
  readonly certPath: string | undefined;
  readonly keyPath: string | undefined;
  readonly passphrasePath: string | undefined;
}
