/**
 * The two requests a resolution makes of a source, over the gateway's engine (its pool, token, retries
 * and events): a search by identifier and a read by id.
 * @module
 */
import { isFhirgateError } from '../../errors.js';
import type { Bundle } from '../../fhir/index.js';
import type { GatewayEngine } from '../core/engine.js';
import { identifierText, type Identifier } from './patient-query.js';

/** A Patient record as the sources answer it (only the fields a resolution reads are typed). */
export interface PatientRecord {
  readonly resourceType?: unknown;
  readonly id?: unknown;
  readonly identifier?: unknown;
  readonly link?: unknown;
}

/** How a resolution reads the sources. */
export interface PatientReader {
  /** `GET [base]/Patient?identifier=system|value&_count=…`: the first page. */
  search(source: string, identifier: Identifier, signal: AbortSignal | undefined): Promise<Bundle>;
  /** `GET [base]/Patient/<id>`, `undefined` when the source answers 404 or 410. */
  read(source: string, id: string, signal: AbortSignal | undefined): Promise<PatientRecord | undefined>;
}

/** Records asked for per identifier search: two are enough to see an ambiguity; more shows a server that does not filter. */
export const SEARCH_COUNT = 50;

/** The {@link PatientReader} of a gateway's engine. */
export function engineReader(engine: GatewayEngine): PatientReader {
  return {
    search: (source, identifier, signal) => engine.search('Patient', { identifier: identifierText(identifier), _count: SEARCH_COUNT }, source, { signal }),
    read: (source, id, signal) =>
      engine.read('Patient', id, source, { signal }).then(
        (patient) => patient as PatientRecord,
        (err: unknown) => {
          if (isFhirgateError(err, 'ERR_FHIR_HTTP') && (err.status === 404 || err.status === 410)) return undefined;
          throw err;
        },
      ),
  };
}
