/**
 * How a NoteReader service describes itself: its OpenAPI paths and the text a plain GET answers.
 * @module
 */
import type { OpenAPIPaths } from '../mount/index.js';

const FAULT_EXAMPLE = [
  '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">',
  '  <soap:Body><soap:Fault><faultcode>soap:Client</faultcode><faultstring>the request body is not a SOAP envelope</faultstring></soap:Fault></soap:Body>',
  '</soap:Envelope>',
].join('\n');
const FAULT = { description: 'soap:Fault', content: { 'text/xml': { schema: { type: 'string' }, example: FAULT_EXAMPLE } } };

/**
 * The OpenAPI path item of a NoteReader service, relative to its prefix: the SOAP POST and the GET with
 * the `wsdl` query parameter.
 */
export function noteReaderOpenAPI(serviceName: string, operations: readonly string[], namespace: string): OpenAPIPaths {
  const ops = operations.join(', ') || 'none registered';
  const example = exampleEnvelope(operations[0] ?? 'ProcessDocument', namespace);
  return {
    '': {
      post: {
        summary: `${serviceName} SOAP 1.1 endpoint (${ops})`,
        description: 'A SOAP 1.1 document/literal envelope. Faults answer HTTP 500 (413 when too large, 415 for another Content-Type).',
        tags: ['NoteReader'],
        requestBody: { required: true, content: { 'text/xml': { schema: { type: 'string' }, example } } },
        responses: {
          200: { description: 'The operation response envelope', content: { 'text/xml': { schema: { type: 'string' }, example: exampleResponse(operations[0] ?? 'ProcessDocument', namespace) } } },
          413: FAULT,
          415: FAULT,
          500: FAULT,
        },
      },
      get: {
        summary: `${serviceName} WSDL (with ?wsdl) or a short description`,
        tags: ['NoteReader'],
        parameters: [{ name: 'wsdl', in: 'query', required: false, description: 'Present: answer the WSDL', schema: { type: 'string' } }],
        responses: {
          200: {
            description: 'The WSDL, or a plain-text description without ?wsdl',
            content: {
              'text/xml': { schema: { type: 'string' }, example: `<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" name="${serviceName}" targetNamespace="${namespace}">…</definitions>` },
              'text/plain': { schema: { type: 'string' }, example: `${serviceName}: a SOAP 1.1 NoteReader service.\nOperations: ${ops}.` },
            },
          },
        },
      },
    },
  };
}

/** The plain-text answer of a GET without `?wsdl`. */
export function describeService(serviceName: string, operations: readonly string[], baseUrl: string): string {
  return (
    `${serviceName}: a SOAP 1.1 NoteReader service.\n` +
    `Operations: ${operations.join(', ') || 'none registered'}.\n` +
    `POST SOAP envelopes (Content-Type: text/xml; charset=utf-8) to ${baseUrl}\n` +
    `WSDL: ${baseUrl}?wsdl\n`
  );
}

/** The shape of a response envelope, for the docs page (the document shortened). */
function exampleResponse(operation: string, namespace: string): string {
  return [
    `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:tns="${namespace}">`,
    `  <soap:Body><tns:${operation}Response><tns:${operation}Result>`,
    '    <tns:Document>PENsaW5pY2FsRG9jdW1lbnQ…</tns:Document><tns:Error></tns:Error>',
    `  </tns:${operation}Result></tns:${operation}Response></soap:Body>`,
    '</soap:Envelope>',
  ].join('\n');
}

/** A small request envelope for the docs page: a one-section CDA, base64-encoded. */
function exampleEnvelope(operation: string, namespace: string): string {
  const cda = '<ClinicalDocument xmlns="urn:hl7-org:v3"><component><structuredBody><component><section>'
    + '<code code="11450-4" codeSystem="2.16.840.1.113883.6.1"/><title>Problems</title><text>Hypertension</text>'
    + '</section></component></structuredBody></component></ClinicalDocument>';
  return [
    `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:tns="${namespace}">`,
    `  <soap:Body><tns:${operation}>`,
    '    <tns:SessionID>docs-page</tns:SessionID><tns:WorkType>2</tns:WorkType><tns:OrganizationID>Example</tns:OrganizationID>',
    `    <tns:Document>${Buffer.from(cda).toString('base64')}</tns:Document>`,
    `  </tns:${operation}></soap:Body>`,
    '</soap:Envelope>',
  ].join('\n');
}
