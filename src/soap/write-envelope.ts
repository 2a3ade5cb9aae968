/**
 * Writing SOAP 1.1 envelopes: the operation response and faults.
 * @module
 */
import { escapeXML } from './escape-xml.js';
import type { SOAPFault } from './fault.js';

/** The SOAP 1.1 envelope namespace. */
export const SOAP_ENVELOPE_NS = 'http://schemas.xmlsoap.org/soap/envelope/';

const XML_DECL = '<?xml version="1.0" encoding="utf-8"?>';

function envelope(body: string): string {
  return `${XML_DECL}<soap:Envelope xmlns:soap="${SOAP_ENVELOPE_NS}"><soap:Body>${body}</soap:Body></soap:Envelope>`;
}

/** What an operation answers: the `Document` (sent as base64 of its UTF-8 bytes) and the `Error`. */
export interface OperationResult {
  /** The document text; omitted from the answer when `undefined`. */
  document?: string | undefined;
  /** The error text; omitted from the answer when `undefined` or `null`. */
  error?: string | null | undefined;
}

/** The answer around its base64 `Document` text: what comes before and after it. */
function responseAround(namespace: string, operation: string, result: OperationResult): [string, string] {
  const open = `${XML_DECL}<soap:Envelope xmlns:soap="${SOAP_ENVELOPE_NS}" xmlns:tns="${escapeXML(namespace)}"><soap:Body><tns:${operation}Response><tns:${operation}Result>`;
  const error = result.error !== undefined && result.error !== null ? `<tns:Error>${escapeXML(result.error)}</tns:Error>` : '';
  const close = `</tns:${operation}Result></tns:${operation}Response></soap:Body></soap:Envelope>`;
  return result.document === undefined ? [`${open}${error}${close}`, ''] : [`${open}<tns:Document>`, `</tns:Document>${error}${close}`];
}

/**
 * Writes `<soap:Envelope><soap:Body><tns:{operation}Response><tns:{operation}Result>` with `Document`
 * and `Error` children, in the service's namespace `namespace`.
 */
export function writeResponse(namespace: string, operation: string, result: OperationResult): string {
  const [before, after] = responseAround(namespace, operation, result);
  return result.document === undefined ? before : `${before}${Buffer.from(result.document, 'utf8').toString('base64')}${after}`;
}

/**
 * {@link writeResponse} as the bytes to send, built in one buffer: no megabyte string is concatenated,
 * measured and encoded again on the way out. The document's UTF-8 bytes are taken as Latin-1 when it
 * is all ASCII (the same bytes, five times faster), and the base64 is written beside the envelope's
 * head and tail, its length known from the byte count.
 */
export function writeResponseBytes(namespace: string, operation: string, result: OperationResult): Buffer {
  const [before, after] = responseAround(namespace, operation, result);
  const { document } = result;
  if (document === undefined) return Buffer.from(before, 'utf8');
  const size = Buffer.byteLength(document, 'utf8');
  const base64Length = 4 * Math.ceil(size / 3);
  const head = Buffer.byteLength(before, 'utf8');
  const out = Buffer.allocUnsafe(head + base64Length + Buffer.byteLength(after, 'utf8'));
  out.write(before, 0, 'utf8');
  writeBase64(out, head, size === document.length ? document : Buffer.from(document, 'utf8'));
  out.write(after, head + base64Length, 'utf8');
  return out;
}

/** Bytes encoded at a time: a multiple of 3, so that only the last window is padded. */
const WINDOW = 3 * 16 * 1024;

/**
 * Writes the base64 of `data` (bytes, or ASCII text standing for its own bytes) into `out` at `at`,
 * window by window: short-lived small strings instead of a megabyte copy of the data and a megabyte
 * string of its base64.
 */
function writeBase64(out: Buffer, at: number, data: string | Buffer): void {
  const window = typeof data === 'string' ? Buffer.allocUnsafe(Math.min(WINDOW, data.length)) : undefined;
  for (let from = 0; from < data.length; from += WINDOW) {
    const to = Math.min(from + WINDOW, data.length);
    const base64 = typeof data === 'string'
      ? window!.toString('base64', 0, window!.write(data.slice(from, to), 0, 'latin1'))
      : data.toString('base64', from, to);
    at += out.write(base64, at, 'latin1');
  }
}

/**
 * Writes a `soap:Fault` (SOAP 1.1 §4.4): `faultcode` qualified by the envelope prefix, `faultstring`,
 * and a `detail` holding `tns:ClientFault` or `tns:ServerFault` with the fault's `Type`. A
 * `MustUnderstand` fault has no `detail`: §4.4 keeps `detail` for errors of the Body, never of headers.
 */
export function writeFault(namespace: string, fault: SOAPFault): string {
  const detailName = fault.faultCode === 'Server' ? 'ServerFault' : 'ClientFault';
  const detail = fault.faultCode === 'MustUnderstand' ? ''
    : `<detail><tns:${detailName} xmlns:tns="${escapeXML(namespace)}"><tns:Type>${escapeXML(fault.type)}</tns:Type></tns:${detailName}></detail>`;
  const body = `<soap:Fault><faultcode>soap:${fault.faultCode}</faultcode><faultstring>${escapeXML(fault.message)}</faultstring>${detail}</soap:Fault>`;
  return envelope(body);
}
