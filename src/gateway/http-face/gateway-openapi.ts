/**
 * The gateway's part of `/openapi.json`: one operation per registered handler, plus `/metadata` and
 * `/status`. Paths are relative to the gateway's prefix.
 * @module
 */
import type { OpenAPIOperation, OpenAPIParameter, OpenAPIPaths } from '../../mount/index.js';
import { handledOperations, type HandledOperation, type OperationParameter } from './handled-operations.js';
import type { HandlerRegistry } from './registry.js';
import { CAPABILITY_SCHEMA, OUTCOME_SCHEMA, STATUS_SCHEMA, resourceSchema, searchsetSchema } from './gateway-schemas.js';
import { FHIR_ID_PATTERN } from '../../fhir/is-fhir-id.js';

const fhirJson = (schema: Record<string, unknown>) => ({ 'application/fhir+json': { schema } });
const FHIR_JSON_CONTENT = fhirJson(OUTCOME_SCHEMA);
const FHIR_ID_SCHEMA = { type: 'string', pattern: FHIR_ID_PATTERN };

const FAILURES: OpenAPIOperation['responses'] = {
  400: { description: 'Invalid id or parameter (OperationOutcome)', content: FHIR_JSON_CONTENT },
  404: { description: 'No handler for the type, or the resource was not found upstream (OperationOutcome)', content: FHIR_JSON_CONTENT },
  410: { description: 'The resource was deleted upstream (OperationOutcome)', content: FHIR_JSON_CONTENT },
  500: { description: 'The handler failed (OperationOutcome)', content: FHIR_JSON_CONTENT },
  502: { description: 'An upstream FHIR server failed (OperationOutcome)', content: FHIR_JSON_CONTENT },
  504: { description: 'An upstream FHIR server did not answer in time (OperationOutcome)', content: FHIR_JSON_CONTENT },
};

/**
 * The OpenAPI 3.1 path items of a gateway whose class is `className`. Every operation is tagged with
 * the class name and has an `operationId` unique within the gateway (`AsyncFHIRGateway_transform_Patient`).
 *
 * @example
 * ```ts
 * Object.keys(gatewayOpenAPI('AsyncFHIRGateway', registry)); // ['/transform/Patient/{id}', '/metadata', '/status']
 * ```
 */
export function gatewayOpenAPI(className: string, registry: HandlerRegistry): OpenAPIPaths {
  const tags = [className];
  const paths: OpenAPIPaths = {};
  for (const op of handledOperations(registry)) {
    paths[op.path] = {
      get: {
        summary: op.kind === 'transform' ? `Transform one ${op.type}` : `Aggregate one patient's ${op.type} resources`,
        description: describe(op),
        operationId: `${className}_${op.kind}_${op.type}`,
        tags,
        parameters: op.parameters.map(toParameter),
        responses: {
          200: op.kind === 'transform'
            ? { description: `The ${op.type}`, content: fhirJson(resourceSchema(op.type)) }
            : { description: 'A searchset Bundle', content: fhirJson(searchsetSchema(op.type)) },
          ...FAILURES,
        },
      },
    };
  }
  paths['/metadata'] = {
    get: {
      summary: 'The CapabilityStatement of the gateway endpoints',
      operationId: `${className}_metadata`,
      tags,
      responses: { 200: { description: 'A CapabilityStatement (`fhirVersion` 4.0.1 unless configured)', content: fhirJson(CAPABILITY_SCHEMA) } },
    },
  };
  paths['/status'] = {
    get: {
      summary: 'Gateway status, sources and connection pool',
      operationId: `${className}_status`,
      tags,
      responses: { 200: { description: 'The gateway status', content: { 'application/json': { schema: STATUS_SCHEMA } } } },
    },
  };
  return paths;
}

function describe(op: HandledOperation): string {
  return op.kind === 'transform'
    ? `Calls the transform handler registered for ${op.type} with the id and the source.`
    : `Calls the aggregate handler registered for ${op.type} with the patient id and the sources.`;
}

function toParameter(p: OperationParameter): OpenAPIParameter {
  const schema = p.fhirId ? FHIR_ID_SCHEMA : { type: 'string' };
  return {
    name: p.name,
    in: p.in,
    required: p.required,
    description: p.description,
    ...(p.repeats ? { schema: { type: 'array', items: schema }, style: 'form', explode: true } : { schema }),
  };
}
