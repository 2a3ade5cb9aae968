/**
 * Test helpers: SOAP request envelopes, a POST over a real socket, and parsing the answer back with
 * fhirgate's own XML reader.
 */
import { readFileSync } from 'node:fs';
import { child, children, parseXMLTree, textContent } from '../../src/soap/xml-tree.js';
import type { XMLElement } from '../../src/soap/xml-tree.js';
import { join } from 'node:path';
import { ROOT } from './code-tree.js';

export const SOAP_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
export const EPIC_NS = 'urn:epic-com:Common.2013.Services';

export function fixture(name: string): string {
  return readFileSync(join(ROOT, 'test/fixtures/cda', name), 'utf8');
}

export interface EnvelopeParts {
  sessionId?: string | undefined;
  workType?: string | undefined;
  organizationId?: string | undefined;
  /** Raw content of the Document element (already base64 or XML). */
  documentXml?: string | undefined;
  operation?: string;
  namespace?: string;
}

/** A ProcessDocument envelope whose Document is the base64 of `document`. */
export function envelope(document: string | undefined, parts: EnvelopeParts = {}): string {
  const p = { sessionId: 'S-1', workType: '2', organizationId: 'Org', ...parts };
  const op = parts.operation ?? 'ProcessDocument';
  const field = (name: string, value: string | undefined) => (value === undefined ? '' : `<urn:${name}>${value}</urn:${name}>`);
  const doc = parts.documentXml ?? (document === undefined ? undefined : Buffer.from(document, 'utf8').toString('base64'));
  return (
    `<soapenv:Envelope xmlns:soapenv="${SOAP_NS}" xmlns:urn="${parts.namespace ?? EPIC_NS}"><soapenv:Header/><soapenv:Body>` +
    `<urn:${op}>${field('SessionID', p.sessionId)}${field('WorkType', p.workType)}${field('OrganizationID', p.organizationId)}${field('Document', doc)}</urn:${op}>` +
    '</soapenv:Body></soapenv:Envelope>'
  );
}

export interface SoapAnswer {
  status: number;
  contentType: string | null;
  text: string;
  root: XMLElement;
}

const LIMITS = { maxDepth: 64, maxElements: 100_000 };

export function parse(text: string): XMLElement {
  return parseXMLTree(text, LIMITS, 'ERR_BAD_REQUEST');
}

export async function post(url: string, body: string | Uint8Array, headers: Record<string, string> = {}): Promise<SoapAnswer> {
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'text/xml; charset=utf-8', ...headers } });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type'), text, root: parse(text) };
}

/** The first child of soap:Body, checked to be in the envelope's structure. */
export function bodyChild(root: XMLElement): XMLElement {
  if (root.name !== 'Envelope' || root.uri !== SOAP_NS) throw new Error('not a SOAP envelope');
  const body = child(root, 'Body');
  if (body?.uri !== SOAP_NS) throw new Error('no soap:Body');
  return children(body)[0]!;
}

export interface FaultParts {
  /** The fault code as written (`soap:Client`). */
  faultcode: string;
  /** The namespace URI its prefix is bound to, resolved from the envelope. */
  faultcodeUri: string | undefined;
  local: string;
  faultstring: string;
  type: string;
}

export function readFault(answer: SoapAnswer): FaultParts {
  const fault = bodyChild(answer.root);
  if (fault.name !== 'Fault' || fault.uri !== SOAP_NS) throw new Error(`not a fault: ${answer.text.slice(0, 300)}`);
  const faultcode = textContent(child(fault, 'faultcode')).trim();
  const [prefix, local = ''] = faultcode.split(':');
  const nsMatch = new RegExp(`xmlns:${prefix}="([^"]*)"`).exec(answer.text);
  const detail = children(child(fault, 'detail'))[0];
  return {
    faultcode,
    faultcodeUri: nsMatch?.[1],
    local,
    faultstring: textContent(child(fault, 'faultstring')),
    type: textContent(child(detail, 'Type')),
  };
}

/** A CDA-like document of exactly `bytes` UTF-8 bytes (for size and memory tests). */
export function bigDocument(bytes: number): string {
  const head = '<ClinicalDocument xmlns="urn:hl7-org:v3">';
  const tail = '</ClinicalDocument>';
  const line = '<paragraph>Patient reports headaches; BP 140/72, plan: review in 2 weeks.</paragraph>\n';
  const room = bytes - head.length - tail.length;
  const body = line.repeat(Math.floor(room / line.length));
  return head + body + ' '.repeat(room - body.length) + tail;
}
