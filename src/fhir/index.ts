/**
 * FHIR R4B: every resource and data type as TypeScript (generated from the R4B StructureDefinitions), the
 * list of resource type names, and small helpers for ids, Bundles and OperationOutcomes.
 * @module
 */
export type * from './generated/datatypes.js';
export type * from './generated/resources.js';
export { RESOURCE_TYPES, type ResourceType } from './generated/resource-types.js';
export type { ResourceOf } from './resource-of.js';
export { isFHIRId } from './is-fhir-id.js';
export { isResourceType, type R4OnlyResourceType } from './is-resource-type.js';
export { operationOutcome } from './operation-outcome.js';
export { searchsetBundle, type SearchsetBundleOptions } from './searchset-bundle.js';
export type { IssueSeverity, IssueType } from './operation-outcome.js';
