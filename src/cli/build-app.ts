/**
 * From a validated config to a mounted (not yet listening) application: one `AsyncFHIRGateway` over
 * the sources, the optional CDS Hooks and NoteReader services, API keys and CORS, and the shared store
 * (`store`) of the gateway's tokens and the facade's rate limits.
 * @module
 */
import { CDSHooksService } from '../cds/index.js';
import { isFhirgateError } from '../errors.js';
import { FHIRFacade } from '../facade/index.js';
import { AsyncFHIRGateway } from '../gateway/index.js';
import { createServiceAPI, type ServiceAPI, type ServiceAPIOptions } from '../host/index.js';
import type { ProxyOptions } from '../http/proxy-options.js';
import type { Logger } from '../mount/index.js';
import { configError } from './config/checks.js';
import { callerWarnings, checkCallerSources, checkFacadeNames, facadeMode } from './config/facade-config.js';
import type { FhirgateConfig } from './config/config-types.js';
import { guardedGateway } from './gateway-guard.js';
import { watchUpstreams } from './upstream-health.js';
import { runHandlerModule } from './handler-module.js';
import { openSharedStore } from './shared-store.js';
import type { SharedStore } from './shared-store.js';
import type { KeyValueStore } from '../lib/key-value-store.js';
import type { TracerLike } from '../lib/tracer.js';

/** The built application and the gateway it serves. */
export interface BuiltApp {
  readonly app: ServiceAPI;
  readonly gateway: AsyncFHIRGateway;
  /** The shared store of `store`, if configured: closed after the app. */
  readonly shared: SharedStore | undefined;
  /** Stops logging the sources' state changes (see `watchUpstreams`). */
  readonly unwatch: () => void;
}

/**
 * Builds the application a config describes, its outbound connections through `options.proxy` if given, its spans to `options.tracer` (host and gateway). A key file that cannot be read is `ERR_CONFIG` naming the
 * source; a handler module that fails is `ERR_CONFIG` naming its setting. On failure everything built so
 * far is closed.
 */
export async function buildApp(config: FhirgateConfig, options: { logger: Logger; proxy?: ProxyOptions | undefined; tracer?: TracerLike | undefined }): Promise<BuiltApp> {
  const shared = config.store === undefined ? undefined : await openSharedStore(config.store, options.logger);
  const gateway = new AsyncFHIRGateway({
    ...(config.gateway.fhirVersion === undefined ? {} : { fhirVersion: config.gateway.fhirVersion }),
    ...(config.gateway.timeoutSeconds === undefined ? {} : { timeoutSeconds: config.gateway.timeoutSeconds }),
    ...(shared === undefined ? {} : { tokenStore: shared.store }),
    ...(options.proxy === undefined ? {} : { proxy: options.proxy }),
    ...(config.identity === undefined ? {} : { identity: config.identity }),
    ...(options.tracer === undefined ? {} : { tracer: options.tracer }),
  });
  const app = hostFor({
    ...(config.title === undefined ? { title: 'fhirgate' } : { title: config.title }),
    ...(config.description === undefined ? {} : { description: config.description }),
    ...(config.apiKeys === undefined ? {} : { apiKeys: config.apiKeys }),
    ...(config.cors === undefined ? {} : { cors: { origins: config.cors.origins, ...(config.cors.credentials === undefined ? {} : { credentials: config.cors.credentials }) } }),
    ...(config.metrics === undefined ? {} : { metrics: config.metrics }),
    ...(config.readinessDrainMs === undefined ? {} : { readinessDrainMs: config.readinessDrainMs }),
    ...(config.shutdownGraceMs === undefined ? {} : { shutdownGraceMs: config.shutdownGraceMs }),
    ...(config.headersTimeoutMs === undefined ? {} : { headersTimeoutMs: config.headersTimeoutMs }),
    ...(config.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: config.requestTimeoutMs }),
    ...(config.publicUrl === undefined ? {} : { publicUrl: config.publicUrl }),
    ...(config.trustProxy === undefined ? {} : { trustProxy: config.trustProxy }),
    ...(config.allowedHosts === undefined ? {} : { allowedHosts: config.allowedHosts }),
    ...(options.tracer === undefined ? {} : { tracer: options.tracer }),
    logger: options.logger,
  });
  let unwatch = (): void => {};
  try {
    addSources(gateway, config.sources);
    unwatch = watchUpstreams(config.sources, options.logger);
    const context = { gateway };
    if (config.gateway.module !== undefined) await runHandlerModule(config.gateway.module, 'gateway.module', gateway, context);
    const held = config.callers !== undefined && config.callers.length > 0;
    if (held) options.logger.info(`gateway routes held to callers: ${config.gateway.path ?? '/fhir'}/transform and /aggregate need a caller that may read the type from every source named; ${config.gateway.path ?? '/fhir'}/status and /gateway/status show upstream origins only to a caller with sources '*' and no patient`, { gateway: 'callers' });
    app.registerGateway(held ? guardedGateway(gateway, config.callers) : gateway, { name: gateway.constructor.name, ...(config.gateway.path === undefined ? {} : { path: config.gateway.path }) });
    if (config.facade.enabled) app.registerService(facadeOf(gateway, config, options.logger, shared?.store, options.proxy), { path: config.gateway.path ?? '/fhir' });
    if (config.cds !== undefined) {
      const cds = new CDSHooksService({
        ...(config.cds.fhirServers === undefined ? {} : { fhirServers: config.cds.fhirServers }),
        ...(options.proxy === undefined ? {} : { proxy: options.proxy }),
      });
      await runHandlerModule(config.cds.module, 'cds.module', cds, context);
      app.registerService(cds, config.cds.path === undefined ? {} : { path: config.cds.path });
    }
    if (config.notereader !== undefined) {
      // Loaded only when configured: the SOAP service is the one importer of saxes.
      const { NoteReaderService } = await import('../soap/index.js');
      const notereader = new NoteReaderService();
      await runHandlerModule(config.notereader.module, 'notereader.module', notereader, context);
      app.registerService(notereader, config.notereader.path === undefined ? {} : { path: config.notereader.path });
    }
  } catch (error) {
    unwatch();
    await Promise.allSettled([app.close(), gateway.close()]);
    await shared?.close();
    throw error;
  }
  return { app, gateway, shared, unwatch };
}

/** `createServiceAPI` whose option errors (a setting out of range together with a default) name the setting. */
function hostFor(options: ServiceAPIOptions): ServiceAPI {
  try {
    return createServiceAPI(options);
  } catch (error) {
    const match = error instanceof RangeError ? /^options\.(\w+) (.*)$/.exec(error.message) : null;
    if (match !== null) throw configError(match[1]!, match[2]!.replace(/options\./g, ''));
    throw error;
  }
}

/**
 * The FHIR facade a config describes, every source a FHIR base beside the gateway. Without callers it
 * serves read and search to anyone when listening on loopback only, and nothing beyond; both are logged.
 */
function facadeOf(gateway: AsyncFHIRGateway, config: FhirgateConfig, logger: Logger, limitStore: KeyValueStore | undefined, proxy: ProxyOptions | undefined): FHIRFacade {
  const { options } = config.facade;
  checkFacadeNames(config.sources.keys(), options.federatedName ?? 'all');
  checkCallerSources(config.callers, [...config.sources.keys()]);
  const mode = facadeMode(config.facade, config.callers, config.host);
  if (mode === 'open-read-only') logger.info('facade open for read and search without credentials: no callers configured, listening on loopback only', { facade: mode });
  if (mode === 'closed') logger.warn('facade serves nothing: no callers configured and listening beyond loopback', { facade: mode });
  if (mode === 'callers') for (const warning of callerWarnings(config.callers)) logger.warn(warning, { facade: mode });
  return new FHIRFacade(gateway, { ...options, callers: config.callers ?? [], openReadOnly: mode === 'open-read-only', ...(limitStore === undefined ? {} : { limitStore }), ...(proxy === undefined ? {} : { proxy }) });
}

/** Registers every source; a key file or connection string problem is `ERR_CONFIG` under the source's path. */
export function addSources(gateway: AsyncFHIRGateway, sources: ReadonlyMap<string, string>): void {
  for (const [name, connectionString] of sources) {
    try {
      gateway.addSource(name, connectionString);
    } catch (error) {
      if (isFhirgateError(error, 'ERR_AUTH_KEY') || isFhirgateError(error, 'ERR_CONNECTION_STRING') || isFhirgateError(error, 'ERR_TLS_FILE')) throw configError(`sources.${name}`, error.message);
      throw error;
    }
  }
}
