/**
 * The JSON Schemas (with examples) of the gateway's answers in `/openapi.json`: so that `/docs` shows
 * what a transform, an aggregate, `/metadata`, `/status` and an error really return.
 * @module
 */

type Schema = Record<string, unknown>;

const str = (example: string): Schema => ({ type: 'string', example });

/** A FHIR resource of `type` (only the elements every resource has are described; all others may appear). */
export function resourceSchema(type: string): Schema {
  return {
    type: 'object',
    description: `A FHIR ${type} resource; any element of the type may appear.`,
    required: ['resourceType'],
    properties: {
      resourceType: { const: type },
      id: str('example-id'),
      meta: {
        type: 'object',
        properties: {
          versionId: str('1'),
          lastUpdated: { type: 'string', format: 'date-time' },
          tag: { type: 'array', items: { type: 'object', properties: { system: str('urn:fhirgate:source'), code: str('ehr-a') } } },
        },
      },
    },
    additionalProperties: true,
  };
}

/** A `searchset` Bundle of `type` resources, with the `outcome` entries of failed sources. */
export function searchsetSchema(type: string): Schema {
  return {
    type: 'object',
    required: ['resourceType', 'type'],
    properties: {
      resourceType: { const: 'Bundle' },
      type: { const: 'searchset' },
      total: { type: 'integer', example: 1 },
      entry: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            fullUrl: { type: 'string', format: 'uri' },
            resource: resourceSchema(type),
            search: { type: 'object', properties: { mode: { enum: ['match', 'outcome'] } } },
          },
        },
      },
    },
  };
}

/** An OperationOutcome, as every gateway endpoint answers an error. */
export const OUTCOME_SCHEMA: Schema = Object.freeze({
  type: 'object',
  required: ['resourceType', 'issue'],
  properties: {
    resourceType: { const: 'OperationOutcome' },
    issue: {
      type: 'array',
      items: {
        type: 'object',
        required: ['severity', 'code'],
        properties: { severity: { enum: ['error', 'fatal', 'warning', 'information'] }, code: str('not-found'), diagnostics: str('Patient/example-id was not found at ehr-a') },
      },
    },
  },
});

/** The CapabilityStatement of `/metadata`. */
export const CAPABILITY_SCHEMA: Schema = Object.freeze({
  type: 'object',
  properties: {
    resourceType: { const: 'CapabilityStatement' },
    status: { const: 'active' },
    date: { type: 'string', format: 'date-time' },
    kind: { const: 'instance' },
    software: { type: 'object', properties: { name: { const: 'fhirgate' }, version: str('0.1.0') } },
    fhirVersion: str('4.0.1'),
    format: { type: 'array', items: { const: 'application/fhir+json' } },
    rest: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          mode: { const: 'server' },
          resource: {
            type: 'array',
            items: { type: 'object', properties: { type: str('Patient'), interaction: { type: 'array', items: { type: 'object', properties: { code: { enum: ['read', 'search-type'] }, documentation: str('Served by the transform handler: `GET …/transform/Patient/{id}?source={source}`') } } } } },
          },
        },
      },
    },
  },
});

/** The body of `<prefix>/status`. */
export const STATUS_SCHEMA: Schema = Object.freeze({
  type: 'object',
  properties: {
    gateway_type: str('AsyncFHIRGateway'),
    status: { const: 'active' },
    version: str('0.1.0'),
    timestamp: { type: 'string', format: 'date-time' },
    sources: { type: 'object', properties: { count: { type: 'integer', example: 2 }, names: { type: 'array', items: str('ehr-a') } } },
    connection_pool: { type: 'object', description: 'the pool limits, totals and per-source counts (no secret)', example: { limits: { max_connections: 100, max_keepalive_connections: 20, keepalive_expiry: 5 }, totals: { active: 0, idle: 1, queued: 0 } } },
    supported_operations: {
      type: 'array',
      items: { type: 'object', properties: { type: str('Patient'), operation: { enum: ['transform', 'aggregate'] }, endpoint: str('/fhir/transform/Patient/{id}'), method: { const: 'GET' }, parameters: { type: 'array', items: str('id') } } },
    },
    events: { type: 'object', properties: { enabled: { type: 'boolean' }, dispatcher: str('LocalEventDispatcher') } },
  },
});
