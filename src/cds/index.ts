/**
 * `fhirgate/cds`: the CDS Hooks 2.0 service.
 *
 * @example
 * ```ts
 * import { CDSHooksService } from 'fhirgate/cds';
 * const cds = new CDSHooksService();
 * ```
 * @module
 */
export { CDSHooksService } from './service.js';
export { CDSError } from './cds-error.js';
export { CDS_DEFAULTS } from './defaults.js';
export type { CDSDiscoveryEntry } from './registry-entry.js';
export type {
  CDSAction, CDSCard, CDSClient, CDSFeedback, CDSFeedbackHandler, CDSHandler, CDSHandlerContext, CDSHookRequest,
  CDSHooksServiceOptions, CDSLink, CDSResponse, CDSServiceDefinition, CDSSource, CDSSuggestion, ClientAuthOptions,
  Coding, FHIRAuthorization, JSONObject, TrustedIssuer,
} from './types.js';
