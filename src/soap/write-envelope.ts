/**
 * Writing SOAP 1.1 envelopes: the operation response and faults.
 * @module
 */
import { escapeXML } from './escape-xml.js';
import type { SOAPFault } from './fault.js';

/**
 * The SOAP 1.1 envelope namespace.
 *
 * @example
 * ```ts
 * tag.uri === SOAP_ENVELOPE_NS;
 * ```
 */
export const SOAP_ENVELOPE_NS = 'http://schemas.xmlsoap.org/soap/envelope/';

const XML_DECL = '<?xml version="1.0" encoding="utf-8"?>';

function envelope(body: string, extraNs = ''): string {
  return `${XML_DECL}<soap:Envelope xmlns:soap="${SOAP_ENVELOPE_NS}"${extraNs}><soap:Body>${body}</soap:Body></soap:Envelope>`;
}

/** What an operation answers: the `Document` (sent as base64 of its UTF-8 bytes) and the `Error`. */
export interface OperationResult {
  /** The document text; omitted from the answer when `undefined`. */
  document?: string | undefined;
  /** The error text; omitted from the answer when `undefined` or `null`. */
  error?: string | null | undefined;
}

/**
 * Writes `<soap:Envelope><soap:Body><tns:{operation}Response><tns:{operation}Result>` with `Document`
 * and `Error` children, in the service's namespace `namespace`.
 *
 * @example
 * ```ts
 * writeResponse('urn:epic-com:Common.2013.Services', 'ProcessDocument', { document: '<ClinicalDocument/>' });
 * ```
 */
export function writeResponse(namespace: string, operation: string, result: OperationResult): string {
  let inner = '';
  if (result.document !== undefined) {
    inner += `<tns:Document>${Buffer.from(result.document, 'utf8').toString('base64')}</tns:Document>`;
  }
  if (result.error !== undefined && result.error !== null) {
    inner += `<tns:Error>${escapeXML(result.error)}</tns:Error>`;
  }
  const body = `<tns:${operation}Response><tns:${operation}Result>${inner}</tns:${operation}Result></tns:${operation}Response>`;
  return envelope(body, ` xmlns:tns="${escapeXML(namespace)}"`);
}

/**
 * Writes a `soap:Fault` (SOAP 1.1 §4.4): `faultcode` qualified by the envelope prefix, `faultstring`,
 * and a `detail` holding `tns:ClientFault` or `tns:ServerFault` with the fault's `Type`. A
 * `MustUnderstand` fault has no `detail`: §4.4 keeps `detail` for errors of the Body, never of headers.
 *
 * @example
 * ```ts
 * writeFault('urn:epic-com:Common.2013.Services', new SOAPFault('Client', 'Missing SOAP Body', { type: 'MissingBody' }));
 * ```
 */
export function writeFault(namespace: string, fault: SOAPFault): string {
  const detailName = fault.faultCode === 'Server' ? 'ServerFault' : 'ClientFault';
  const detail = fault.faultCode === 'MustUnderstand' ? ''
    : `<detail><tns:${detailName} xmlns:tns="${escapeXML(namespace)}"><tns:Type>${escapeXML(fault.type)}</tns:Type></tns:${detailName}></detail>`;
  const body = `<soap:Fault><faultcode>soap:${fault.faultCode}</faultcode><faultstring>${escapeXML(fault.message)}</faultstring>${detail}</soap:Fault>`;
  return envelope(body);
}
