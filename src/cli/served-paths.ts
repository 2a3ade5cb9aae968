/**
 * What `fhirgate serve` serves, said at start-up: each mounted component under its path prefix (the
 * gateway with its sources by name), and the host's own routes. Names and paths only, never a
 * connection string. A new kind of mount (a facade) is one more entry in {@link servedPrefixes}.
 * @module
 */
import type { FhirgateConfig } from './config/config-types.js';
import { facadeMode } from './config/facade-config.js';

/** A path prefix and the component that answers under it. */
export interface ServedPrefix {
  readonly path: string;
  readonly component: string;
  /** For a gateway: the names of its sources. */
  readonly sources?: readonly string[];
}

/**
 * The components a config mounts, with the prefixes `buildApp` mounts them at (each component's
 * default when the config names none).
 */
export function servedPrefixes(config: FhirgateConfig): ServedPrefix[] {
  const served: ServedPrefix[] = [{ path: config.gateway.path ?? '/fhir', component: 'AsyncFHIRGateway', sources: [...config.sources.keys()] }];
  const mode = facadeMode(config.facade, config.callers, config.host);
  if (mode === 'callers' || mode === 'open-read-only') {
    const prefix = config.gateway.path ?? '/fhir';
    for (const name of config.sources.keys()) served.push({ path: `${prefix}/${name}`, component: 'FHIRFacade', sources: [name] });
    served.push({ path: `${prefix}/${config.facade.options.federatedName ?? 'all'}`, component: 'FHIRFacade', sources: [...config.sources.keys()] });
  }
  if (config.cds !== undefined) served.push({ path: config.cds.path ?? '/cds', component: 'CDSHooksService' });
  if (config.notereader !== undefined) served.push({ path: config.notereader.path ?? '/notereader', component: 'NoteReaderService' });
  return served;
}

/** The host's own routes for a config: the index, docs, OpenAPI, health, status, and `/metrics` when on. */
export function hostPaths(config: FhirgateConfig): string[] {
  return ['/', '/docs', '/openapi.json', '/health', '/health/ready', '/gateway/status', ...(config.metrics === true ? ['/metrics'] : [])];
}
