/**
 * The JSON Schemas (with examples) of the host's own answers in `/openapi.json`.
 * @module
 */

type Schema = Record<string, unknown>;

/** `GET /`: name, version, description, the mounted gateways and services. */
export const INFO_SCHEMA: Schema = Object.freeze({
  type: 'object',
  properties: {
    name: { type: 'string', example: 'fhirgate' },
    version: { type: 'string', description: "The API's own version (the `version` option of createServiceAPI), not fhirgate's", example: '1.0.0' },
    fhirgate_version: { type: 'string', description: 'The version of fhirgate serving the API', example: '0.1.0' },
    description: { type: 'string', example: 'Two FHIR sources behind one gateway' },
    gateways: { type: 'array', items: { type: 'string', example: 'AsyncFHIRGateway' } },
    services: { type: 'array', items: { type: 'string', example: 'CDSHooksService' } },
  },
});

/** `GET /health`. */
export const HEALTH_SCHEMA: Schema = Object.freeze({
  type: 'object',
  properties: { status: { enum: ['healthy', 'shutting down'] }, pid: { type: 'integer', description: 'the process id (tells cluster workers apart)' } },
});

/** `GET /health/ready`: whether the app takes traffic. */
export const READY_SCHEMA: Schema = Object.freeze({ type: 'object', properties: { status: { enum: ['starting', 'ready', 'draining'] } } });

/** `GET /gateway/status`: every component by name (keys vary, hence the explicit example). */
export const STATUS_SCHEMA: Schema = Object.freeze({
  type: 'object',
  properties: {
    gateways: { type: 'object', additionalProperties: { type: 'object', properties: { status: { type: 'string' }, sources: { type: 'array', items: { type: 'string' } }, connection_pool: { type: 'object' } } } },
    services: { type: 'object', additionalProperties: { type: 'object', properties: { status: { type: 'string' }, hooks: { type: 'array', items: { type: 'string' } } } } },
    events: { type: 'object', properties: { enabled: { type: 'boolean' }, dispatcher: { type: 'string' } } },
  },
  example: {
    gateways: { AsyncFHIRGateway: { status: 'active', sources: ['ehr-a', 'ehr-b'], connection_pool: { totals: { active: 0, idle: 2, queued: 0 } } } },
    services: { CDSHooksService: { status: 'active', hooks: ['patient-view'] } },
    events: { enabled: true, dispatcher: 'LocalEventDispatcher' },
  },
});

/** `GET /openapi.json`. */
export const OPENAPI_SCHEMA: Schema = Object.freeze({
  type: 'object',
  required: ['openapi', 'info', 'paths'],
  properties: {
    openapi: { const: '3.1.0' },
    info: { type: 'object', properties: { title: { type: 'string', example: 'fhirgate' }, version: { type: 'string', example: '1.0.0' } } },
    paths: { type: 'object', example: { '/health': { get: { summary: 'Health' } } } },
  },
});
