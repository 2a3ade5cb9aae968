/**
 * FHIR R4B: every resource and data type as TypeScript (generated from the R4B StructureDefinitions), the
 * list of resource type names, and small helpers for ids, Bundles and OperationOutcomes.
 * @module
 */
export type * from './generated/datatypes.js';
export type * from './generated/resources.js';
export { RESOURCE_TYPES, type ResourceType } from './generated/resource-types.js';
export type { ResourceOf } from './resource-of.js';
export { isResourceType } from './is-resource-type.js';
export { isFHIRId, FHIR_ID_PATTERN } from './is-fhir-id.js';
export { ISSUE_SEVERITIES, ISSUE_TYPES, operationOutcome, type IssueSeverity, type IssueType } from './operation-outcome.js';
export { MAX_OUTCOME_MESSAGE_LENGTH, outcomeMessage } from './outcome-message.js';
export { searchsetBundle, type SearchsetBundleOptions } from './searchset-bundle.js';
