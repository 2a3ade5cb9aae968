/**
 * The CapabilityStatement answered at `GET <prefix>/metadata`.
 * @module
 */
import type { ResourceOf } from '../../fhir/index.js';
import { handledOperations, requestLine, type HandledOperation } from './handled-operations.js';
import type { HandlerRegistry } from './registry.js';

/** What the statement is built from besides the registry. */
export interface CapabilityFacts {
  /** The gateway's class name, used in the implementation description. */
  readonly className: string;
  /** The absolute URL of the gateway's mount point (`implementation.url`). */
  readonly baseUrl: string;
  /** The fhirgate version (`software.version`). */
  readonly version: string;
  /** The FHIR version spoken to clients (`fhirVersion`), checked by the gateway's options. */
  readonly fhirVersion: string;
  /** The statement's `date`, default now. */
  readonly date?: Date;
}

type CapabilityStatement = ResourceOf<'CapabilityStatement'>;

/**
 * A CapabilityStatement (`fhirVersion` 4.0.1 unless the gateway says otherwise, `kind: instance`) with one `rest[0].resource` per handled type:
 * a transform handler gives the `read` interaction, an aggregate handler `search-type`. The real
 * endpoint paths go in each interaction's `documentation`, since they are not the standard REST paths.
 * `implementation` is present, as invariant cpb-14 requires for instances.
 */
export function capabilityStatement(registry: HandlerRegistry, facts: CapabilityFacts): CapabilityStatement {
  const byType = new Map<string, HandledOperation[]>();
  for (const op of handledOperations(registry)) byType.set(op.type, [...(byType.get(op.type) ?? []), op]);
  const resources = [...byType].map(([type, ops]) => ({
    type,
    interaction: ops.map((op) => ({
      code: op.interaction,
      documentation: `Served by the ${op.kind} handler: \`${requestLine(facts.baseUrl, op)}\``,
    })),
  }));
  return {
    resourceType: 'CapabilityStatement',
    status: 'active',
    date: (facts.date ?? new Date()).toISOString(),
    kind: 'instance',
    software: { name: 'fhirgate', version: facts.version },
    implementation: { description: `${facts.className} (fhirgate transform and aggregate endpoints)`, url: facts.baseUrl },
    fhirVersion: facts.fhirVersion,
    format: ['application/fhir+json'],
    rest: [
      {
        mode: 'server',
        documentation: 'Transform and aggregate endpoints; each interaction gives its request path.',
        // FHIR JSON never holds an empty array: no handler, no `resource`.
        ...(resources.length > 0 ? { resource: resources } : {}),
      },
    ],
  };
}
