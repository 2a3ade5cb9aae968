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
const FHIR_ID_SCHEMA = { type: 'string', pattern: FHIR_ID_PATTERN };

/** An OperationOutcome answer with the example the endpoint really sends for that status. */
function outcome(description: string, code: string, diagnostics: string): NonNullable<OpenAPIOperation['responses']>[string] {
  const example = { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code, diagnostics }] };
  return { description, content: { 'application/fhir+json': { schema: OUTCOME_SCHEMA, example } } };
}

/** The error answers of one handler's endpoint, each with the text `handler-routes.ts` and `reply-for-error.ts` give it. */
function failures(op: HandledOperation): OpenAPIOperation['responses'] {
  const reference = `${op.kind === 'transform' ? op.type : 'Patient'}/example-id`;
  return {
    400: op.kind === 'transform'
      ? outcome('Invalid id or parameter (OperationOutcome)', 'value', 'the id is not a FHIR id ([A-Za-z0-9-.]{1,64})')
      : outcome('Missing or invalid patient_id, or an unknown source (OperationOutcome)', 'required', 'the patient_id query parameter is required'),
    404: outcome('No handler for the type, or the resource was not found upstream (OperationOutcome)', 'not-found', `${reference} was not found at the source`),
    410: outcome('The resource was deleted upstream (OperationOutcome)', 'deleted', `${reference} was deleted at the source`),
    500: outcome('The handler failed (OperationOutcome)', 'exception', `the ${op.kind} handler for ${op.type} failed`),
    502: outcome('An upstream FHIR server failed (OperationOutcome)', 'transient', 'an upstream FHIR server could not be reached or gave an unusable answer'),
    504: outcome('An upstream FHIR server did not answer in time (OperationOutcome)', 'timeout', 'an upstream FHIR server did not answer in time'),
  };
}

/**
 * The OpenAPI 3.1 path items of a gateway whose class is `className`. Every operation is tagged with
 * the class name and has an `operationId` unique within the gateway (`AsyncFHIRGateway_transform_Patient`).
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
          ...failures(op),
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
