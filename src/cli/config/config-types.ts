/**
 * The shape of `fhirgate.json`, after validation.
 * @module
 */

import type { FHIRFacadeOptions } from '../../facade/index.js';
import type { IdentityOptions } from '../../gateway/index.js';
import type { FacadeConfig } from './facade-config.js';
import type { StoreConfig } from './store-config.js';

/** A CDS Hooks or NoteReader mount: where it is served and the module that registers its handlers. */
export interface ServiceMountConfig {
  /** The path prefix (`/cds`, `/notereader` by default). */
  readonly path: string | undefined;
  /** Absolute path of the handler module (relative paths are resolved against the config file's folder). */
  readonly module: string;
}

/** The CDS Hooks mount: a service mount plus the FHIR servers prefetch may read from. */
export interface CDSMountConfig extends ServiceMountConfig {
  /** `new CDSHooksService({ fhirServers })`: the allowlist of prefetch; `undefined` reaches public addresses only. */
  readonly fhirServers: readonly string[] | undefined;
}

/** The gateway section. */
export interface GatewayConfig {
  /** The gateway's path prefix. Default `/fhir`. */
  readonly path: string | undefined;
  /** What `/metadata` reports. Default `4.0.1`. */
  readonly fhirVersion: string | undefined;
  /** Seconds a request to a source may take. Default 30. */
  readonly timeoutSeconds: number | undefined;
  /** Absolute path of a module registering transform and aggregate handlers. */
  readonly module: string | undefined;
}

/** CORS settings, as `createServiceAPI({ cors })` takes them. */
export interface CorsConfig {
  readonly origins: readonly string[] | '*';
  readonly credentials: boolean | undefined;
}

/** A validated configuration. Every string has had its `${ENV_VAR}` references expanded. */
export interface FhirgateConfig {
  readonly title: string | undefined;
  readonly description: string | undefined;
  /** The interface to listen on. Default `127.0.0.1`. */
  readonly host: string | undefined;
  readonly port: number | undefined;
  /** Source name → `fhir://` connection string, in file order. */
  readonly sources: ReadonlyMap<string, string>;
  readonly gateway: GatewayConfig;
  readonly cds: CDSMountConfig | undefined;
  readonly notereader: ServiceMountConfig | undefined;
  readonly apiKeys: readonly string[] | undefined;
  readonly cors: CorsConfig | undefined;
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error' | undefined;
  /** `json` lines or `pretty` lines for people; default pretty on a terminal, JSON otherwise (`LOG_FORMAT` wins). */
  readonly logFormat: 'json' | 'pretty' | undefined;
  /** Worker processes of `serve` (`node:cluster`): `'auto'` (one per core) or a count; `undefined` serves in this process. */
  readonly workers: 'auto' | number | undefined;
  /** With workers: each listens on the port itself (`'auto'`, the default: where Node and the kernel allow; see `serveCluster`). */
  readonly reusePort: 'auto' | boolean | undefined;
  /** Serve `GET /metrics` (Prometheus text). Default false. */
  readonly metrics: boolean | undefined;
  /** Milliseconds `/health/ready` answers 503 after SIGTERM before the listener closes. Default 0. */
  readonly readinessDrainMs: number | undefined;
  /** Milliseconds requests in flight get to finish at shutdown before they are aborted. Default 10 000. */
  readonly shutdownGraceMs: number | undefined;
  /** Milliseconds a shutdown may take in all before the process (or a worker) is killed. Default 30 000. */
  readonly stopTimeoutMs: number | undefined;
  /** Milliseconds a client has to send a request's headers. Default 15 000. */
  readonly headersTimeoutMs: number | undefined;
  /** Milliseconds a client has to send a whole request. Default 60 000. */
  readonly requestTimeoutMs: number | undefined;
  /** The URL callers reach the host at (WSDL address, `/fhir/metadata` url, CDS `aud`). Default: from the connection. */
  readonly publicUrl: string | undefined;
  /** Use `Host` / `X-Forwarded-*` for the public URL, for `allowedHosts` only. Default false. */
  readonly trustProxy: boolean | undefined;
  /** With `trustProxy`, the host names (or `host:port`) a proxy may name. */
  readonly allowedHosts: readonly string[] | undefined;
  /** Who may call the FHIR facade (`{prefix}/{source}`, the federated base), and what each may do. */
  readonly callers: FHIRFacadeOptions['callers'];
  /** The facade: on by default, its federated name, limits, audit sink and page tokens. */
  readonly facade: FacadeConfig;
  /** Where replicas share the facade's rate limits and the gateway's tokens (Redis); `undefined`: each process alone. */
  readonly store: StoreConfig | undefined;
  /** Patient identity across sources: the gateway's `identity` option, as is. */
  readonly identity: IdentityOptions | undefined;
}
