/**
 * A source from `addSource`'s arguments: the settings both gateways read on the calling thread (the
 * connection string checked, the next key of the options added, the time-out), and the `Source` the
 * async gateway registers (with its token manager over the gateway's pool).
 * @module
 */
import { parseConnectionString } from '../../auth/index.js';
import { withHttpsBase } from '../../auth/parse-connection-string.js';
import type { SourceConfig } from '../../auth/index.js';
import type { SourceAuth } from '../../auth/source-config.js';
import { sourceTLS } from '../../auth/source-tls.js';
import type { TLSOptions } from '../../http/tls-options.js';
import { TokenManager } from '../../auth/token-manager.js';
import type { AgentPool } from '../../http/agent-pool.js';
import type { KeyValueStore } from '../../lib/key-value-store.js';
import { sourceBase } from './resource-path.js';
import { withNextKey } from './source-keys.js';
import type { SourceOptions } from './source-keys.js';
import type { Source } from './source-registry.js';

/** What `addSource` learns from its arguments before anything is stored. */
export interface SourceSettings {
  /** The parsed connection string. */
  readonly config: SourceConfig;
  /** Its auth, with the next key of `options.nextKeyPath` staged (`undefined` for a public server). */
  readonly auth: SourceAuth;
  /** Milliseconds a request to the source may take: the connection string's, else the gateway's. */
  readonly timeoutMs: number;
  /** The `tls` option of `addSource` (the connection string's TLS files are in `config`). */
  readonly tls: TLSOptions | undefined;
}

/**
 * Checks the connection string (`ERR_CONNECTION_STRING`) and the key options (`TypeError` naming the
 * option) of `addSource`; reads no file.
 */
export function sourceSettings(connectionString: string, options: SourceOptions | undefined, defaultTimeoutMs: number): SourceSettings {
  const parsed = parseConnectionString(connectionString);
  const config = options?.tls === undefined ? parsed : withHttpsBase(parsed);
  const auth = withNextKey(config.auth, options);
  if (options?.tls !== undefined && parsed.tlsFiles !== undefined) throw new TypeError('addSource: give TLS files in the connection string (ca_path, cert_path, key_path) or options.tls, not both');
  return { config, auth, timeoutMs: config.timeoutMs ?? defaultTimeoutMs, tls: options?.tls };
}

/**
 * A new source of the async gateway: its TLS files (`ERR_TLS_FILE`) and its token manager's key files
 * (`ERR_AUTH_KEY`, when it has auth) are read now; it sends through `pool` with its TLS settings, discovers the token endpoint when the connection string
 * has no `token_url`, and shares tokens through `store` when given.
 */
export function openSource(name: string, settings: SourceSettings, pool: AgentPool, store: KeyValueStore | undefined): Source {
  const { config, auth, timeoutMs } = settings;
  const tls = sourceTLS(name, config.tlsFiles, settings.tls);
  const send = (url: string, o: Parameters<AgentPool['request']>[1]) => pool.request(url, o, tls);
  const discovery = { baseUrl: config.baseUrl, allowHttp: config.allowHttp };
  const tokens = auth === undefined ? undefined : new TokenManager(auth, { send, timeoutMs, discovery, store, source: name });
  return { name, baseUrl: config.baseUrl, base: sourceBase(config.baseUrl), origin: config.origin, timeoutMs, tls, tokens, requests: 0, errors: 0 };
}
