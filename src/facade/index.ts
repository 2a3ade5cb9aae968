/**
 * `fhirgate/facade`: every source of a gateway as a FHIR base, one federated base, callers held to a
 * policy, signed page tokens, AuditEvents (IHE BALP), rate limits.
 * @module
 */
export { FHIRFacade } from './facade.js';
export type { APIKeyCaller, AuditSinkOptions, CallerPolicy, FHIRFacadeOptions, IssuerCallers, PatientIdentifier, RateOptions, SourceLimits } from './options.js';
export { RESERVED_NAMES } from './options.js';
export { AUDIT_EVENT_NAME } from './audit-trail.js';
export type { AuditSinkStatus } from './audit-sink.js';
