/**
 * One registered CDS service: its discovery entry, its handlers and its client authentication. Checked
 * and copied once, at registration.
 * @module
 */
import type { ProxyAgents } from '../http/proxy-agents.js';
import { ClientAuth } from './client-auth.js';
import { FHIRServerAllowlist } from './fhir-server-allowlist.js';
import { onlyKnownKeys } from '../lib/options.js';
import { checkPrefetchTemplates } from './prefetch-template.js';
import { CDS_OPTION_KEYS, type CDSFeedbackHandler, type CDSHandler, type CDSServiceDefinition } from './types.js';

/** A service id is one URL path segment. */
const SERVICE_ID = /^[A-Za-z0-9\-._~]{1,128}$/;

/** The discovery entry of a service (CDS Hooks 2.0 §"Discovery"), absent fields omitted. */
export interface CDSDiscoveryEntry {
  hook: string;
  title?: string;
  description: string;
  id: string;
  prefetch?: Record<string, string>;
  usageRequirements?: string;
}

/** A service as the routes use it. */
export interface ServiceEntry {
  readonly discovery: Readonly<CDSDiscoveryEntry>;
  readonly handler: CDSHandler;
  readonly feedback: CDSFeedbackHandler | undefined;
  /** `undefined`: use the service-wide authentication; `null`: none. */
  readonly auth: ClientAuth | null | undefined;
  /** `undefined`: use the service-wide list of allowed FHIR servers (if any). */
  readonly fhirServers: FHIRServerAllowlist | undefined;
}

function optionalString(value: unknown, name: string): string | undefined {
  if (value !== undefined && typeof value !== 'string') throw new TypeError(`${name} must be a string`);
  return value;
}

/** Checks and copies a service definition, without its handler. Throws a `TypeError` naming the option. */
export function prepareEntry(hookType: unknown, definition: CDSServiceDefinition, proxy?: ProxyAgents): (handler: CDSHandler) => ServiceEntry {
  if (typeof hookType !== 'string' || !/^[^\s/]+$/.test(hookType)) throw new TypeError('hookType must be a non-empty string without blanks or slashes');
  if (typeof definition !== 'object' || definition === null) throw new TypeError('definition must be an object');
  onlyKnownKeys(definition, CDS_OPTION_KEYS.definition, 'definition');
  const { id, description, prefetch, feedback, auth } = definition;
  if (typeof id !== 'string' || !SERVICE_ID.test(id)) throw new TypeError('definition.id must be 1 to 128 URL-safe characters ([A-Za-z0-9-._~])');
  if (typeof description !== 'string' || description === '') throw new TypeError('definition.description must be a non-empty string');
  const discovery: CDSDiscoveryEntry = { hook: hookType, description, id };
  const title = optionalString(definition.title, 'definition.title');
  if (title !== undefined) discovery.title = title;
  if (prefetch !== undefined) {
    if (typeof prefetch !== 'object' || prefetch === null) throw new TypeError('definition.prefetch must be an object');
    checkPrefetchTemplates(hookType, prefetch);
    discovery.prefetch = { ...prefetch };
  }
  const usage = optionalString(definition.usageRequirements, 'definition.usageRequirements');
  if (usage !== undefined) discovery.usageRequirements = usage;
  if (feedback !== undefined && typeof feedback !== 'function') throw new TypeError('definition.feedback must be a function');
  if (auth !== undefined && auth !== false && (typeof auth !== 'object' || auth === null)) {
    throw new TypeError('definition.auth must be client authentication options or false');
  }
  const clientAuth = auth === undefined ? undefined : auth === false ? null : new ClientAuth(auth, proxy);
  const fhirServers = FHIRServerAllowlist.from(definition.fhirServers, 'definition.fhirServers');
  Object.freeze(discovery.prefetch);
  return (handler) => {
    if (typeof handler !== 'function') throw new TypeError('handler must be a function');
    return { discovery: Object.freeze(discovery), handler, feedback, auth: clientAuth, fhirServers };
  };
}
