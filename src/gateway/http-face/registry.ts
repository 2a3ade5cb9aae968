/**
 * The per-gateway table of user handlers: one *transform* handler and one *aggregate* handler per
 * resource type. Both gateway variants own one registry; the HTTP face reads it at request time.
 * @module
 */
import { FhirgateError } from '../../errors.js';
import { isResourceType, type Bundle, type Resource, type ResourceOf, type ResourceType } from '../../fhir/index.js';
import type { PatientResolution } from '../identity/index.js';

/**
 * Reads one resource, enriches it and returns it. Called for `GET <prefix>/transform/<Type>/<id>`
 * with the path id and the `source` query parameter (`undefined` when absent). May be async.
 *
 * @example
 * ```ts
 * const handler: TransformHandler<'Patient'> = async (id, source) => gw.read('Patient', id, source);
 * ```
 */
export type TransformHandler<T extends ResourceType = ResourceType> = (
  id: string,
  source?: string,
) => ResourceOf<T> | Promise<ResourceOf<T>>;

/**
 * The patient of an aggregate request made by identifier (`patient_identifier=system|value`): its local
 * id in each source where it was found. Sources where it is absent, ambiguous or failed are not in `ids`.
 *
 * @example
 * ```ts
 * const ids: AggregatePatient['ids'] = { ehr: 'e-17', lab: 'l-4' };
 * ```
 */
export interface AggregatePatient {
  /** The identifier asked for, `system|value`. */
  readonly identifier: string;
  /** Source name → that source's local Patient id. */
  readonly ids: Readonly<Record<string, string>>;
  /** The whole resolution (every source's outcome). */
  readonly resolution: PatientResolution;
}

/**
 * Collects one patient's data of a type from several sources into one `searchset` Bundle. Called for
 * `GET <prefix>/aggregate/<Type>?patient_id=…&sources=a&sources=b` with that one id for every source
 * (`sources` is `undefined` when the caller named none, `patient` is `undefined`), and for
 * `GET <prefix>/aggregate/<Type>?patient_identifier=system|value&sources=…` with the identifier as
 * `patientId`, the sources where the patient was found as `sources`, and each one's local id in
 * `patient.ids` (search each source with its own id: `patient.ids[source] ?? patientId`). May be async.
 * The Bundle holds resources of type `T` and may hold others (`include` entries, OperationOutcome
 * `outcome` entries).
 *
 * @example
 * ```ts
 * const handler: AggregateHandler = async (patientId, sources = ['epic', 'cerner'], patient) => {
 *   const parts = await Promise.all(sources.map((s) =>
 *     aggregateSources(gw, { resourceType: 'Observation', params: { patient: patient?.ids[s] ?? patientId }, sources: [s] })));
 *   return { resourceType: 'Bundle', type: 'searchset', entry: parts.flatMap((b) => b.entry ?? []) };
 * };
 * ```
 */
export type AggregateHandler<T extends ResourceType = ResourceType> = (
  patientId: string,
  sources?: string[],
  patient?: AggregatePatient,
) => Bundle<ResourceOf<T> | Resource> | Promise<Bundle<ResourceOf<T> | Resource>>;

/** The two kinds of handler a registry holds. */
export type HandlerKind = 'transform' | 'aggregate';

/**
 * Transform and aggregate handlers keyed by resource type. Registering a second handler of the same
 * kind for the same type replaces the first (like re-adding a source), so a module reloaded in
 * development does not fail; the type keeps its place in the lists.
 */
export class HandlerRegistry {
  readonly #transforms = new Map<ResourceType, TransformHandler>();
  readonly #aggregates = new Map<ResourceType, AggregateHandler>();

  /** Registers the transform handler of `type` and returns it. */
  transform<T extends ResourceType>(type: T, handler: TransformHandler<T>): TransformHandler<T>;
  /** Returns a wrapper that registers the handler it is given for `type` and returns it unchanged. */
  transform<T extends ResourceType>(type: T): <H extends TransformHandler<T>>(handler: H) => H;
  transform(type: ResourceType, handler?: TransformHandler): unknown {
    return register(this.#transforms, 'transform', type, handler, arguments.length);
  }

  /** Registers the aggregate handler of `type` and returns it. */
  aggregate<T extends ResourceType>(type: T, handler: AggregateHandler<T>): AggregateHandler<T>;
  /** Returns a wrapper that registers the handler it is given for `type` and returns it unchanged. */
  aggregate<T extends ResourceType>(type: T): <H extends AggregateHandler<T>>(handler: H) => H;
  aggregate(type: ResourceType, handler?: AggregateHandler): unknown {
    return register(this.#aggregates, 'aggregate', type, handler, arguments.length);
  }

  /** The transform handler of `type`, or `undefined` when none is registered. */
  transformHandler<T extends ResourceType>(type: T): TransformHandler<T> | undefined {
    return this.#transforms.get(type) as TransformHandler<T> | undefined;
  }

  /** The aggregate handler of `type`, or `undefined` when none is registered. */
  aggregateHandler(type: ResourceType): AggregateHandler | undefined {
    return this.#aggregates.get(type);
  }

  /** The types with a transform handler, in the order they were first registered. */
  transformTypes(): ResourceType[] {
    return [...this.#transforms.keys()];
  }

  /** The types with an aggregate handler, in the order they were first registered. */
  aggregateTypes(): ResourceType[] {
    return [...this.#aggregates.keys()];
  }
}

/** Validates `type` (and `handler` when given) and stores it, or returns the wrapper form. */
function register<H>(table: Map<ResourceType, H>, kind: HandlerKind, type: unknown, handler: unknown, argc: number): unknown {
  const checked = checkType(kind, type);
  if (argc < 2) {
    return (wrapped: unknown) => store(table, kind, checked, wrapped);
  }
  return store(table, kind, checked, handler);
}

function store<H>(table: Map<ResourceType, H>, kind: HandlerKind, type: ResourceType, handler: unknown): H {
  if (typeof handler !== 'function') {
    throw new TypeError(`the ${kind} handler for ${type} must be a function, got ${typeof handler}`);
  }
  table.set(type, handler as H);
  return handler as H;
}

function checkType(kind: HandlerKind, type: unknown): ResourceType {
  if (typeof type !== 'string') {
    throw new TypeError(`the resource type of a ${kind} handler must be a string, got ${typeof type}`);
  }
  if (!isResourceType(type)) {
    throw new FhirgateError(
      'ERR_INVALID_RESOURCE_TYPE',
      `cannot register a ${kind} handler: ${JSON.stringify(type.slice(0, 80))} is not a FHIR resource type name`,
    );
  }
  return type;
}
