/**
 * The public shapes of the NoteReader service.
 * @module
 */
import type { Logger } from '../mount/index.js';
import type { EventDispatcher } from '../events/types.js';

/** What a NoteReader method handler is given. */
export interface NoteReaderRequest {
  /** The operation called (`ProcessDocument`). */
  readonly operation: string;
  /** The decoded document (a CDA document, as text). */
  readonly document: string;
  /** `SessionID` from the request. */
  readonly sessionId: string;
  /** `WorkType` from the request. */
  readonly workType: string;
  /** `OrganizationID` from the request. */
  readonly organizationId: string;
}

/** What else a handler is given: the request's id, logger and abort signal. */
export interface NoteReaderContext {
  readonly requestId: string;
  readonly log: Logger;
  /** Aborted when the caller goes away or the host shuts down. */
  readonly signal: AbortSignal;
}

/**
 * What a handler answers: the document to send back and an error text. An `error` is sent in the
 * `Error` element of a normal (HTTP 200) answer, as Epic and HealthChain expect.
 */
export interface NoteReaderResult {
  document?: string;
  error?: string | null;
}

/**
 * A NoteReader method. Returning a string is the same as returning `{ document: thatString }`. What it
 * throws becomes a `soap:Server` fault with a generic `faultstring`; the details go to the log.
 */
export type NoteReaderHandler = (
  request: NoteReaderRequest,
  context: NoteReaderContext,
) => NoteReaderResult | string | Promise<NoteReaderResult | string>;

/** Options of `new NoteReaderService(options)`. Every one is optional. */
export interface NoteReaderServiceOptions {
  /** The service's XML namespace. Default `urn:epic-com:Common.2013.Services`. */
  namespace?: string;
  /** The WSDL `service` name. Default `CDSServices`. */
  serviceName?: string;
  /** The WSDL `portType`, `binding` and `port` name. Default `ICDSServices`. */
  portName?: string;
  /** The largest request body, in bytes. Default 10 MiB (10 485 760). Larger bodies get HTTP 413. */
  bodyLimit?: number;
  /** The deepest element nesting accepted in a request (the Envelope is 1). Default 256. */
  maxDepth?: number;
  /** The most elements accepted in a request. Default 200 000. */
  maxElements?: number;
  /**
   * The most attributes accepted on one element of a request, namespace declarations included. Default 128
   * (a CDA element carries about ten). More is a `soap:Client` fault.
   */
  maxAttributes?: number;
  /** The most namespace declarations (`xmlns`, `xmlns:p`) accepted on one element. Default 32. */
  maxNamespaceDeclarations?: number;
  /** The longest attribute value accepted, in characters. Default 65 536. */
  maxAttributeLength?: number;
  /**
   * SOAP header entries the application takes responsibility for, as `{namespace}localName`
   * (`{http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd}Security` when a
   * proxy in front checks WS-Security). Any other entry for this node with `mustUnderstand="1"` is a
   * `MustUnderstand` fault (SOAP 1.1 §4.2.3). Default: none.
   */
  understoodHeaders?: readonly string[];
  /** Where `notereader.<operation>` events go. Default: the process-wide `localHandler`. */
  dispatcher?: EventDispatcher;
  /**
   * The URL clients post to, written as the WSDL's `soap:address` (`https://ehr-gw.example.org/notereader`).
   * Default: the host's public URL (its `publicUrl`, else the listening address) plus the mount path;
   * never the caller's `Host` header unless the host trusts its proxy and allows that host.
   */
  publicUrl?: string;
}
