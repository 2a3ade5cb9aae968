/**
 * What a Bulk Data export yields, and what it needs from the gateway that runs it.
 * @module
 */
import type { EventPayload } from '../../events/types.js';
import type { Resource } from '../../fhir/generated/resources.js';
import type { HTTPResponse } from '../../http/request-options.js';
import type { FHIRCall } from '../core/fhir-call.js';
import type { Source } from '../core/source-registry.js';

/**
 * One line of an export's files: a resource of an `output` file, an OperationOutcome of an `error`
 * file, or a transaction Bundle of a `deleted` file (with `_since`: what was deleted since), with the
 * source and the file it came from.
 *
 * @example
 * ```ts
 * for await (const item of gw.bulkExport('epic', { types: ['Patient'] })) {
 *   if (item.kind === 'error') console.warn(item.url, item.resource); // an OperationOutcome
 *   else console.log(item.source, item.type, item.resource.id);
 * }
 * ```
 */
export interface BulkItem {
  /** Which manifest list the file is in. */
  readonly kind: 'output' | 'error' | 'deleted';
  /** The source name. */
  readonly source: string;
  /** The resource's own `resourceType` (`OperationOutcome` in an error file, `Bundle` in a deleted file). */
  readonly type: string;
  /** The URL of the file the line came from. */
  readonly url: string;
  readonly resource: Resource;
}

/**
 * What an export needs from its gateway: its sources, calls counted as in flight (so that `close()`
 * waits for them), its events, and its limits.
 */
export interface BulkHost {
  /** The named source, or the first one (`ERR_UNKNOWN_SOURCE`, `ERR_NO_SOURCES`, `ERR_CLOSED`). */
  source(name: string | undefined): Source;
  call(source: Source, call: FHIRCall): Promise<HTTPResponse>;
  /** True once the gateway is closed (a download cut by `close()` is then `ERR_CLOSED`). */
  closed(): boolean;
  /** Sends an event when anyone listens. */
  emit(name: string, payload: () => EventPayload): void;
  /** Bytes of one NDJSON line at most (the gateway's `maxResponseBytes`). */
  readonly maxLineBytes: number;
  /** The pool's `maxConnections`: how many sources `bulkExportAll` runs at once at most. */
  readonly maxConnections: number;
}
