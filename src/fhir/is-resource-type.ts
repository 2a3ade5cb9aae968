/**
 * The checks for resource type names: R4B's (the generated models), and R4's too where the gateway
 * passes names on to R4 servers.
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

/**
 * The resource types of FHIR R4 (4.0.1) that R4B (4.3.0) removed or reworked under other names (R4B
 * version history: the evidence-synthesis and medicinal-product resources, the `Substance*` details),
 * and so are missing from the generated R4B list although an R4 server serves them.
 */
export const R4_ONLY_RESOURCE_TYPES = Object.freeze([
  'EffectEvidenceSynthesis', 'MedicinalProduct', 'MedicinalProductAuthorization', 'MedicinalProductContraindication',
  'MedicinalProductIndication', 'MedicinalProductIngredient', 'MedicinalProductInteraction', 'MedicinalProductManufactured',
  'MedicinalProductPackaged', 'MedicinalProductPharmaceutical', 'MedicinalProductUndesirableEffect', 'RiskEvidenceSynthesis',
  'SubstanceNucleicAcid', 'SubstancePolymer', 'SubstanceProtein', 'SubstanceReferenceInformation', 'SubstanceSourceMaterial',
  'SubstanceSpecification',
] as const);

/**
 * A resource type of FHIR R4 that R4B no longer has (`EffectEvidenceSynthesis`, `MedicinalProduct`, ...):
 * accepted where a name is only passed on to an R4 server (a Bulk Data export's `types`).
 */
export type R4OnlyResourceType = (typeof R4_ONLY_RESOURCE_TYPES)[number];

const R4_ONLY: ReadonlySet<string> = new Set(R4_ONLY_RESOURCE_TYPES);

/** True for the name of a resource type of FHIR R4 or R4B: for names passed on to a server, not typed by the models. */
export function isR4OrR4BResourceType(name: unknown): name is ResourceType | R4OnlyResourceType {
  return typeof name === 'string' && (NAMES.has(name) || R4_ONLY.has(name));
}
