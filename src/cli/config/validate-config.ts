/**
 * Validation of a parsed `fhirgate.json`: `${ENV_VAR}` expansion, then one check per setting. Every
 * failure is `ERR_CONFIG` with the path of the setting (`sources.ehr: token_url must be https …`) and
 * never the value.
 * @module
 */
import { isAbsolute, resolve } from 'node:path';
import { parseConnectionString } from '../../auth/index.js';
import { isFhirgateError } from '../../errors.js';
import { checkFHIRVersion } from '../../gateway/core/fhir-version.js';
import {
  configError,
  object,
  onlyKeys,
  optionalBoolean,
  optionalMilliseconds,
  optionalPort,
  optionalPositive,
  optionalPrefix,
  optionalString,
  optionalStrings,
  optionalWorkers,
} from './checks.js';
import type { CDSMountConfig, CorsConfig, FhirgateConfig, GatewayConfig, ServiceMountConfig } from './config-types.js';
import { expandEnv, literalText } from './expand-env.js';
import { checkCallerIdentities, checkCallers, checkFacade } from './facade-config.js';
import { checkAuthoritySources, checkIdentityConfig } from './identity-config.js';
import { optionalAllowedHosts, optionalFHIRServers, optionalPublicUrl } from './public-address.js';
import { optionalReusePort } from './reuse-port.js';
import { checkStoreConfig } from './store-config.js';

/** Where relative module paths are resolved and where `${…}` values come from. */
export interface ConfigContext {
  /** The folder of the config file (or the working directory). */
  readonly dir: string;
  readonly env: Readonly<Record<string, string | undefined>>;
}

type Checks = { readonly [K in keyof FhirgateConfig]-?: (value: unknown, path: string, ctx: ConfigContext) => FhirgateConfig[K] };

const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
const LOG_FORMATS = ['json', 'pretty'] as const;

/**
 * One check per top-level setting; a new setting is one more entry (the type makes it required).
 * `$schema` is allowed and ignored, for editors.
 */
const CHECKS: Checks = {
  title: optionalString,
  description: optionalString,
  host: optionalString,
  port: optionalPort,
  sources: checkSources,
  gateway: checkGateway,
  cds: checkCDSMount,
  notereader: checkServiceMount,
  apiKeys: optionalStrings,
  cors: checkCors,
  logLevel: (value, path) => {
    if (value === undefined) return undefined;
    if (!LOG_LEVELS.includes(value as never)) throw configError(path, `must be one of ${LOG_LEVELS.join(', ')}`);
    return value as FhirgateConfig['logLevel'];
  },
  logFormat: (value, path) => {
    if (value === undefined) return undefined;
    if (!LOG_FORMATS.includes(value as never)) throw configError(path, `must be one of ${LOG_FORMATS.join(', ')}`);
    return value as FhirgateConfig['logFormat'];
  },
  workers: optionalWorkers,
  reusePort: optionalReusePort,
  metrics: optionalBoolean,
  readinessDrainMs: (value, path) => optionalMilliseconds(value, path),
  shutdownGraceMs: (value, path) => optionalMilliseconds(value, path),
  stopTimeoutMs: (value, path) => optionalMilliseconds(value, path, 1),
  headersTimeoutMs: (value, path) => optionalMilliseconds(value, path, 1),
  requestTimeoutMs: (value, path) => optionalMilliseconds(value, path, 1),
  publicUrl: optionalPublicUrl,
  trustProxy: optionalBoolean,
  allowedHosts: optionalAllowedHosts,
  callers: checkCallers,
  facade: checkFacade,
  store: checkStoreConfig,
  identity: checkIdentityConfig,
};

/** Validates a parsed config file (any JSON value) and returns it typed and frozen. */
export function validateConfig(raw: unknown, ctx: ConfigContext): FhirgateConfig {
  const top = object(expandAll(raw, '', ctx.env), '(the file)');
  onlyKeys(top, ['$schema', ...Object.keys(CHECKS)], '');
  const entries = Object.entries(CHECKS).map(([key, check]) => [key, (check as Checks[keyof Checks])(top[key], key, ctx)]);
  const config = Object.freeze(Object.fromEntries(entries)) as FhirgateConfig;
  const { headersTimeoutMs, requestTimeoutMs } = config;
  if (headersTimeoutMs !== undefined && requestTimeoutMs !== undefined && headersTimeoutMs > requestTimeoutMs) throw configError('headersTimeoutMs', 'must be <= requestTimeoutMs');
  checkAuthoritySources(config.identity, config.sources);
  checkCallerIdentities(config.callers, config.identity);
  return config;
}

/**
 * Checks one connection string, as `sources.<name>` or `--source <name>`: the parser's own message
 * (which never quotes a value) under the path.
 */
export function checkSource(value: unknown, path: string): string {
  if (typeof value !== 'string' || value === '') throw configError(path, 'must be a fhir:// connection string');
  try {
    parseConnectionString(value);
  } catch (error) {
    if (isFhirgateError(error, 'ERR_CONNECTION_STRING')) throw configError(path, error.message.replace(/^invalid connection string: /, ''));
    throw error;
  }
  return value;
}

/** Checks a source name: what `addSource` accepts and a URL query value carries unescaped. */
export function checkSourceName(name: string, path: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/.test(name)) throw configError(path, 'a source name is 1 to 100 letters, digits, _ . or -, starting with a letter or digit');
  return name;
}

function checkSources(value: unknown, path: string): ReadonlyMap<string, string> {
  const record = value === undefined ? {} : object(value, path);
  const sources = new Map<string, string>();
  for (const [name, cs] of Object.entries(record)) sources.set(checkSourceName(name, path), checkSource(cs, `${path}.${name}`));
  return sources;
}

function checkGateway(value: unknown, path: string, ctx: ConfigContext): GatewayConfig {
  const record = value === undefined ? {} : object(value, path);
  if (record.timeout !== undefined) throw configError(`${path}.timeout`, `is now ${path}.timeoutSeconds (time settings say their unit)`);
  onlyKeys(record, ['path', 'fhirVersion', 'timeoutSeconds', 'module'], path);
  let fhirVersion: string | undefined;
  try {
    fhirVersion = record.fhirVersion === undefined ? undefined : checkFHIRVersion(record.fhirVersion);
  } catch {
    throw configError(`${path}.fhirVersion`, 'must be a FHIR version code such as 4.0.1 or 4.3.0');
  }
  return Object.freeze({
    path: optionalPrefix(record.path, `${path}.path`),
    fhirVersion,
    timeoutSeconds: optionalPositive(record.timeoutSeconds, `${path}.timeoutSeconds`),
    module: optionalModule(record.module, `${path}.module`, ctx),
  });
}

function checkCDSMount(value: unknown, path: string, ctx: ConfigContext): CDSMountConfig | undefined {
  if (value === undefined) return undefined;
  const mount = checkServiceMount(value, path, ctx, ['fhirServers']) as ServiceMountConfig;
  return Object.freeze({ ...mount, fhirServers: optionalFHIRServers((value as Record<string, unknown>).fhirServers, `${path}.fhirServers`) });
}

function checkServiceMount(value: unknown, path: string, ctx: ConfigContext, more: readonly string[] = []): ServiceMountConfig | undefined {
  if (value === undefined) return undefined;
  const record = object(value, path);
  onlyKeys(record, ['path', 'module', ...more], path);
  const module = optionalModule(record.module, `${path}.module`, ctx);
  if (module === undefined) throw configError(`${path}.module`, 'is required: the module that registers the handlers');
  return Object.freeze({ path: optionalPrefix(record.path, `${path}.path`), module });
}

function checkCors(value: unknown, path: string): CorsConfig | undefined {
  if (value === undefined) return undefined;
  const record = object(value, path);
  onlyKeys(record, ['origins', 'credentials'], path);
  const origins = record.origins === '*' ? '*' : optionalStrings(record.origins, `${path}.origins`);
  if (origins === undefined) throw configError(`${path}.origins`, 'is required: a list of origins, or "*"');
  if (record.credentials !== undefined && typeof record.credentials !== 'boolean') throw configError(`${path}.credentials`, 'must be true or false');
  return Object.freeze({ origins, credentials: record.credentials as boolean | undefined });
}

function optionalModule(value: unknown, path: string, ctx: ConfigContext): string | undefined {
  const text = optionalString(value, path);
  if (text === undefined) return undefined;
  return isAbsolute(text) ? text : resolve(ctx.dir, text);
}

/** Shown at `/` and `/docs` to anyone, without an API key: never expanded, so no variable can be published. */
const SHOWN_WITHOUT_KEY: ReadonlySet<string> = new Set(['title', 'description']);

/** Expands `${…}` in every string of the document, keys and {@link SHOWN_WITHOUT_KEY} excluded, with the path of each. */
function expandAll(value: unknown, path: string, env: ConfigContext['env']): unknown {
  if (typeof value === 'string') return SHOWN_WITHOUT_KEY.has(path) ? literalText(value, path) : expandEnv(value, path === '' ? '(the file)' : path, env);
  if (Array.isArray(value)) return value.map((v, i) => expandAll(v, `${path}[${i}]`, env));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandAll(v, path === '' ? k : `${path}.${k}`, env)]));
  }
  return value;
}
