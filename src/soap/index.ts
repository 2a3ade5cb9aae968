/**
 * `fhirgate/soap`: the NoteReader SOAP 1.1 service and the CDA helpers (`readCDA`, `cdaToFHIR`,
 * `enrichCDA`). The envelope reader and writer, the WSDL builder and the per-section CDA converters are
 * the service's own parts, imported by path inside the package. The only part of fhirgate that loads
 * `saxes`; the main entry never imports it.
 *
 * @example
 * ```ts
 * import { NoteReaderService, readCDA } from 'fhirgate/soap';
 * const nr = new NoteReaderService();
 * nr.method('ProcessDocument', ({ document }) => ({ document, error: readCDA(document).problems.length ? '' : 'no problems' }));
 * ```
 * @module
 */
export { NoteReaderService } from './service.js';
export type { NoteReaderContext, NoteReaderHandler, NoteReaderRequest, NoteReaderResult, NoteReaderServiceOptions } from './types.js';
export { SOAPFault, type SOAPFaultCode, type SOAPFaultOptions } from './fault.js';
export { DEFAULTS as NOTEREADER_DEFAULTS } from './options.js';
export type { XMLLimits } from './secure-parser.js';
export { readCDA, type ReadCDAOptions } from './cda/read-cda.js';
export { enrichCDA, type CDAEnrichment } from './cda/enrich.js';
export { cdaToFHIR, type CDAFHIRResources } from './cda/to-fhir.js';
export type * from './cda/types.js';
