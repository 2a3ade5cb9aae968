/**
 * The check for R4B resource type names.
 * @module
 */
import { RESOURCE_TYPES, type ResourceType } from './generated/resource-types.js';

const NAMES: ReadonlySet<string> = new Set(RESOURCE_TYPES);

/**
 * True when `name` is the exact, case-sensitive name of a concrete FHIR R4B resource type. Abstract
 * types (`Resource`, `DomainResource`) and data types (`HumanName`) are not resource types.
 *
 * @example
 * ```ts
 * isResourceType('Patient');  // true
 * isResourceType('patient');  // false
 * if (isResourceType(segment)) return gw.read(segment, id);  // segment is now a ResourceType
 * ```
 */
export function isResourceType(name: unknown): name is ResourceType {
  return typeof name === 'string' && NAMES.has(name);
}
