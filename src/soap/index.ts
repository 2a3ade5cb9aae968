/**
 * `fhirgate/soap`: the NoteReader SOAP 1.1 service and the CDA helpers. The only part of fhirgate that
 * loads `saxes`; the main entry never imports it.
 * @module
 */
export { NoteReaderService } from './service.js';
export type { NoteReaderContext, NoteReaderHandler, NoteReaderRequest, NoteReaderResult, NoteReaderServiceOptions } from './types.js';
export { SoapFault, type SoapFaultCode, type SoapFaultOptions } from './fault.js';
export { DEFAULTS as NOTEREADER_DEFAULTS } from './options.js';
export { readEnvelope, type SoapRequestMessage } from './read-envelope.js';
export { SOAP_ENVELOPE_NS, writeFault, writeResponse, type OperationResult } from './write-envelope.js';
export { buildWsdl, type WsdlDescription } from './wsdl.js';
export { decodeBase64Strict } from './base64.js';
export type { XmlLimits } from './secure-parser.js';
export { readCda, type ReadCdaOptions } from './cda/read-cda.js';
export { enrichCda, type CdaEnrichment } from './cda/enrich.js';
export {
  allergyToAllergyIntolerance,
  cdaToFhir,
  medicationToStatement,
  noteToDocumentReference,
  problemToCondition,
  type CdaFhirResources,
} from './cda/to-fhir.js';
export { patientReference } from './cda/fhir-values.js';
export type * from './cda/types.js';
