/**
 * Old names of `fhirgate/soap`, kept for one release after the move to one acronym style (all
 * capitals: `SOAP`, `WSDL`, `CDA`, `FHIR`, `XML`). Each is the same object or type as its new name.
 * @module
 */
import type { CDAEnrichment } from './cda/enrich.js';
import { enrichCDA } from './cda/enrich.js';
import type { ReadCDAOptions } from './cda/read-cda.js';
import { readCDA } from './cda/read-cda.js';
import type { CDAFHIRResources } from './cda/to-fhir.js';
import { cdaToFHIR } from './cda/to-fhir.js';
import type { CDACode, CDAIdentifier, CDAName, CDAPatient, CDAAuthor, CDAHeader, CDASection, CDAProblem, CDAMedication, CDAAllergy, CDAAllergyInput, CDADocument } from './cda/types.js';
import { SOAPFault } from './fault.js';
import type { SOAPFaultCode, SOAPFaultOptions } from './fault.js';
import type { SOAPRequestMessage } from './read-envelope.js';
import type { XMLLimits } from './secure-parser.js';
import { buildWSDL } from './wsdl.js';
import type { WSDLDescription } from './wsdl.js';

/**
 * @deprecated Renamed {@link SOAPFault}; this alias goes in the next release.
 * @example
 * ```ts
 * SOAPFault === SoapFault; // true: the old name is the new one
 * ```
 */
export const SoapFault = SOAPFault;

/** @deprecated Renamed {@link SOAPFault}. */
export type SoapFault = SOAPFault;

/**
 * @deprecated Renamed {@link buildWSDL}; this alias goes in the next release.
 * @example
 * ```ts
 * buildWSDL === buildWsdl; // true: the old name is the new one
 * ```
 */
export const buildWsdl = buildWSDL;

/**
 * @deprecated Renamed {@link readCDA}; this alias goes in the next release.
 * @example
 * ```ts
 * readCDA === readCda; // true: the old name is the new one
 * ```
 */
export const readCda = readCDA;

/**
 * @deprecated Renamed {@link enrichCDA}; this alias goes in the next release.
 * @example
 * ```ts
 * enrichCDA === enrichCda; // true: the old name is the new one
 * ```
 */
export const enrichCda = enrichCDA;

/**
 * @deprecated Renamed {@link cdaToFHIR}; this alias goes in the next release.
 * @example
 * ```ts
 * cdaToFHIR === cdaToFhir; // true: the old name is the new one
 * ```
 */
export const cdaToFhir = cdaToFHIR;

/** @deprecated Renamed {@link SOAPFaultCode}. */
export type SoapFaultCode = SOAPFaultCode;

/** @deprecated Renamed {@link SOAPFaultOptions}. */
export type SoapFaultOptions = SOAPFaultOptions;

/** @deprecated Renamed {@link SOAPRequestMessage}. */
export type SoapRequestMessage = SOAPRequestMessage;

/** @deprecated Renamed {@link WSDLDescription}. */
export type WsdlDescription = WSDLDescription;

/** @deprecated Renamed {@link XMLLimits}. */
export type XmlLimits = XMLLimits;

/** @deprecated Renamed {@link ReadCDAOptions}. */
export type ReadCdaOptions = ReadCDAOptions;

/** @deprecated Renamed {@link CDAEnrichment}. */
export type CdaEnrichment = CDAEnrichment;

/** @deprecated Renamed {@link CDAFHIRResources}. */
export type CdaFhirResources = CDAFHIRResources;

/** @deprecated Renamed {@link CDACode}. */
export type CdaCode = CDACode;

/** @deprecated Renamed {@link CDAIdentifier}. */
export type CdaIdentifier = CDAIdentifier;

/** @deprecated Renamed {@link CDAName}. */
export type CdaName = CDAName;

/** @deprecated Renamed {@link CDAPatient}. */
export type CdaPatient = CDAPatient;

/** @deprecated Renamed {@link CDAAuthor}. */
export type CdaAuthor = CDAAuthor;

/** @deprecated Renamed {@link CDAHeader}. */
export type CdaHeader = CDAHeader;

/** @deprecated Renamed {@link CDASection}. */
export type CdaSection = CDASection;

/** @deprecated Renamed {@link CDAProblem}. */
export type CdaProblem = CDAProblem;

/** @deprecated Renamed {@link CDAMedication}. */
export type CdaMedication = CDAMedication;

/** @deprecated Renamed {@link CDAAllergy}. */
export type CdaAllergy = CDAAllergy;

/** @deprecated Renamed {@link CDAAllergyInput}. */
export type CdaAllergyInput = CDAAllergyInput;

/** @deprecated Renamed {@link CDADocument}. */
export type CdaDocument = CDADocument;
