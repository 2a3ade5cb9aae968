/**
 * The OpenAPI 3.1 part of a CDS Hooks service: discovery, the generic call and feedback routes, and one
 * call operation per registered service.
 * @module
 */
import type { OpenAPIOperation, OpenAPIParameter, OpenAPIPaths } from '../mount/index.js';
import { CARDS_SCHEMA, discoverySchema } from './openapi-schemas.js';
import type { CDSDiscoveryEntry } from './registry-entry.js';

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' }, field: { type: 'string' } } },
  },
};
const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ERROR_SCHEMA } } });
const CALL_ERRORS = {
  400: errorResponse('invalid request body (the field is named)'),
  401: errorResponse('the CDS client JWT is missing or not acceptable'),
  404: errorResponse('no service with that id'),
  413: errorResponse('body too large'),
  415: errorResponse('body is not application/json'),
  500: errorResponse('the service failed or returned an invalid card'),
};

function callBody(hooks: readonly string[]): NonNullable<OpenAPIOperation['requestBody']> {
  const schema = {
    type: 'object',
    required: ['hook', 'hookInstance', 'context'],
    properties: {
      hook: hooks.length > 0 ? { type: 'string', enum: [...new Set(hooks)] } : { type: 'string' },
      hookInstance: { type: 'string', format: 'uuid' },
      fhirServer: { type: 'string', format: 'uri' },
      fhirAuthorization: { type: 'object' },
      context: { type: 'object' },
      prefetch: { type: 'object' },
    },
  };
  const example = {
    hook: hooks[0] ?? 'patient-view',
    hookInstance: 'd1577c69-dfbe-44ad-ba6d-3e05e953b2ea',
    context: { userId: 'Practitioner/example', patientId: 'example' },
  };
  return { required: true, content: { 'application/json': { schema, example } } };
}

function callOperation(summary: string, hooks: readonly string[], extra: Partial<OpenAPIOperation>): OpenAPIOperation {
  return {
    summary,
    tags: ['CDS Hooks'],
    requestBody: callBody(hooks),
    responses: {
      200: { description: 'cards (maybe none) and system actions', content: { 'application/json': { schema: CARDS_SCHEMA } } },
      ...CALL_ERRORS,
      412: errorResponse('prefetch data the service needs could not be obtained'),
    },
    ...extra,
  };
}

/** The paths of a CDS Hooks service, relative to its mount point. */
export function buildOpenAPI(services: readonly CDSDiscoveryEntry[]): OpenAPIPaths {
  const ids = services.map((s) => s.id);
  const idParameter: OpenAPIParameter = {
    name: 'id', in: 'path', required: true, description: 'the service id', schema: ids.length > 0 ? { type: 'string', enum: ids } : { type: 'string' },
  };
  const discovery = (summary: string): OpenAPIOperation => ({
    summary, tags: ['CDS Hooks'],
    responses: { 200: { description: '{ services: [...] }', content: { 'application/json': { schema: discoverySchema(services) } } } },
  });
  const paths: OpenAPIPaths = {
    '/cds-services': { get: discovery('CDS Hooks discovery') },
    '/cds-discovery': { get: discovery('CDS Hooks discovery (alias)') },
    '/cds-services/{id}': { post: callOperation('Call a CDS service', services.map((s) => s.hook), { parameters: [idParameter] }) },
    '/cds-services/{id}/feedback': {
      post: {
        summary: 'Feedback on the cards of a CDS service',
        tags: ['CDS Hooks'],
        parameters: [idParameter],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { type: 'object', required: ['feedback'] },
              example: { feedback: [{ card: '9368d37b-283f-44a0-93ea-547cebab93ed', outcome: 'overridden', outcomeTimestamp: '2026-01-01T12:00:00Z' }] },
            },
          },
        },
        responses: { 200: { description: 'feedback accepted' }, ...CALL_ERRORS },
      },
    },
  };
  for (const service of services) {
    paths[`/cds-services/${service.id}`] = {
      post: callOperation(service.title ?? service.id, [service.hook], { description: service.description, operationId: `cds_${service.id}` }),
    };
  }
  return paths;
}
