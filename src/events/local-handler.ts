/**
 * The process-wide default dispatcher.
 * @module
 */
import { LocalEventDispatcher } from './local-dispatcher.js';

/**
 * The process-wide {@link LocalEventDispatcher} that gateways and services emit through unless given
 * another dispatcher. Failures of its handlers go to stderr as JSON lines.
 *
 * @example
 * ```ts
 * import { localHandler } from 'fhirgate';
 * localHandler.register('fhir.patient.read', async ([name, payload]) => audit(payload.resource_id));
 * ```
 */
export const localHandler: LocalEventDispatcher = new LocalEventDispatcher();
