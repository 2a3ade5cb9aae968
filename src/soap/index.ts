/**
 * `fhirgate/soap`: the NoteReader SOAP 1.1 service and the CDA helpers. The only part of fhirgate that
 * loads `saxes`; the main entry never imports it.
 * @module
 */
export { NoteReaderService } from './service.js';
export type { NoteReaderContext, NoteReaderHandler, NoteReaderRequest, NoteReaderResult, NoteReaderServiceOptions } from './types.js';
export { SOAPFault, type SOAPFaultCode, type SOAPFaultOptions } from './fault.js';
export { DEFAULTS as NOTEREADER_DEFAULTS } from './options.js';
export { readEnvelope, type SOAPRequestMessage } from './read-envelope.js';
export { SOAP_ENVELOPE_NS, writeFault, writeResponse, type OperationResult } from './write-envelope.js';
export { buildWSDL, type WSDLDescription } from './wsdl.js';
export { decodeBase64Strict } from './base64.js';
export type { XMLLimits } from './secure-parser.js';
export { readCDA, type ReadCDAOptions } from './cda/read-cda.js';
export { enrichCDA, type CDAEnrichment } from './cda/enrich.js';
export {
  allergyToAllergyIntolerance,
  cdaToFHIR,
  medicationToStatement,
  noteToDocumentReference,
  problemToCondition,
  type CDAFHIRResources,
} from './cda/to-fhir.js';
export { patientReference } from './cda/fhir-values.js';
export type * from './cda/types.js';
