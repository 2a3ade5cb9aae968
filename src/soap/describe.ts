/**
 * How a NoteReader service describes itself: its OpenAPI paths and the text a plain GET answers.
 * @module
 */
import type { OpenAPIPaths } from '../mount.js';

const FAULT = { description: 'soap:Fault', content: { 'text/xml': { schema: { type: 'string' } } } };

/**
 * The OpenAPI path item of a NoteReader service, relative to its prefix: the SOAP POST and the GET with
 * the `wsdl` query parameter.
 *
 * @example
 * ```ts
 * noteReaderOpenapi('CDSServices', ['ProcessDocument'])[''].post?.summary;
 * ```
 */
export function noteReaderOpenapi(serviceName: string, operations: readonly string[]): OpenAPIPaths {
  const ops = operations.join(', ') || 'none registered';
  return {
    '': {
      post: {
        summary: `${serviceName} SOAP 1.1 endpoint (${ops})`,
        description: 'A SOAP 1.1 document/literal envelope. Faults answer HTTP 500 (413 when too large, 415 for another Content-Type).',
        tags: ['NoteReader'],
        requestBody: { required: true, content: { 'text/xml': { schema: { type: 'string' } } } },
        responses: {
          200: { description: 'The operation response envelope', content: { 'text/xml': { schema: { type: 'string' } } } },
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
            content: { 'text/xml': { schema: { type: 'string' } }, 'text/plain': { schema: { type: 'string' } } },
          },
        },
      },
    },
  };
}

/**
 * The plain-text answer of a GET without `?wsdl`.
 *
 * @example
 * ```ts
 * describeService('CDSServices', ['ProcessDocument'], 'http://127.0.0.1:8000/notereader');
 * ```
 */
export function describeService(serviceName: string, operations: readonly string[], baseUrl: string): string {
  return (
    `${serviceName}: a SOAP 1.1 NoteReader service.\n` +
    `Operations: ${operations.join(', ') || 'none registered'}.\n` +
    `POST SOAP envelopes (Content-Type: text/xml; charset=utf-8) to ${baseUrl}\n` +
    `WSDL: ${baseUrl}?wsdl\n`
  );
}
