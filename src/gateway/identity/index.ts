/**
 * Patient identity across sources: the `identity` option, `resolvePatient` and its outcomes.
 * @module
 */
export { aggregateView, type AggregateView } from './aggregate-view.js';
export { checkIdentityOptions, IDENTITY_DEFAULTS, type IdentityOptions, type IdentitySettings } from '../core/identity-options.js';
export { parseIdentifier } from './patient-query.js';
export { engineReader } from './patient-reader.js';
export { PatientResolver, RESOLVE_EVENT } from './resolve-patient.js';
export type { AbsentOutcome, AmbiguousOutcome, FailedOutcome, FoundOutcome, PatientQuery, PatientResolution, ResolveOptions, SourceOutcome } from './types.js';
