/**
 * One description of every endpoint the registered handlers give, shared by `/metadata`, `/status`
 * and the OpenAPI paths so that the three never disagree.
 * @module
 */
import type { ResourceType } from '../../fhir/index.js';
import type { HandlerKind, HandlerRegistry } from './registry.js';

/** A parameter of a handler endpoint. */
export interface OperationParameter {
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly required: boolean;
  readonly description: string;
  /** True when the parameter may repeat (`sources=a&sources=b`). */
  readonly repeats: boolean;
  /** True when the value must be a FHIR id. */
  readonly fhirId: boolean;
}

/** One endpoint served by a registered handler. */
export interface HandledOperation {
  readonly type: ResourceType;
  readonly kind: HandlerKind;
  /** The FHIR RESTful interaction it stands for: transform → `read`, aggregate → `search-type`. */
  readonly interaction: 'read' | 'search-type';
  /** The path relative to the gateway's prefix, OpenAPI style (`/transform/Patient/{id}`). */
  readonly path: string;
  readonly parameters: readonly OperationParameter[];
}

const TRANSFORM_PARAMETERS: readonly OperationParameter[] = Object.freeze([
  { name: 'id', in: 'path', required: true, description: 'The FHIR id of the resource', repeats: false, fhirId: true },
  { name: 'source', in: 'query', required: false, description: 'The source to read from (default: the first registered)', repeats: false, fhirId: false },
]);

const AGGREGATE_PARAMETERS: readonly OperationParameter[] = Object.freeze([
  { name: 'patient_id', in: 'query', required: true, description: 'The FHIR id of the patient (`id` is accepted too)', repeats: false, fhirId: true },
  { name: 'sources', in: 'query', required: false, description: 'The sources to collect from; repeat it or separate names with commas', repeats: true, fhirId: false },
]);

/**
 * The endpoints of every registered handler: transforms first, then aggregates, each in the order
 * their types were first registered.
 */
export function handledOperations(registry: HandlerRegistry): HandledOperation[] {
  return [
    ...registry.transformTypes().map(
      (type): HandledOperation => ({
        type,
        kind: 'transform',
        interaction: 'read',
        path: `/transform/${type}/{id}`,
        parameters: TRANSFORM_PARAMETERS,
      }),
    ),
    ...registry.aggregateTypes().map(
      (type): HandledOperation => ({
        type,
        kind: 'aggregate',
        interaction: 'search-type',
        path: `/aggregate/${type}`,
        parameters: AGGREGATE_PARAMETERS,
      }),
    ),
  ];
}

/** The example request line of an operation under `base` (`GET http://h/fhir/transform/Patient/{id}?source={source}`). */
export function requestLine(base: string, op: HandledOperation): string {
  const query = op.parameters
    .filter((p) => p.in === 'query')
    .map((p) => `${p.name}={${p.name}}`)
    .join('&');
  return `GET ${base}${op.path}?${query}`;
}
