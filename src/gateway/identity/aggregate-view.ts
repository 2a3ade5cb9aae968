/**
 * A resolution as the aggregate endpoint uses it: the sources where the patient was found with their
 * local ids, and an OperationOutcome entry for each source that is refused (ambiguous or failed).
 * @module
 */
import { operationOutcome, type BundleEntry } from '../../fhir/index.js';
import { SOURCE_TAG_SYSTEM } from '../core/source-tag.js';
import type { AmbiguousOutcome, FailedOutcome, PatientResolution } from './types.js';

/** What the aggregate handler is given, and what its answer gets added. */
export interface AggregateView {
  /** The identifier asked for, `system|value`. */
  readonly identifier: string;
  /** The sources where the patient was found, in the order asked. */
  readonly sources: string[];
  /** Source name → that source's local Patient id. */
  readonly ids: Readonly<Record<string, string>>;
  readonly resolution: PatientResolution;
  /** The sources refused: ambiguous or failed. */
  readonly refused: readonly string[];
  /** One OperationOutcome entry (`search.mode: outcome`, tagged with the source) per refused source. */
  readonly outcomes: readonly BundleEntry[];
}

/** The aggregate endpoint's view of a resolution. */
export function aggregateView(resolution: PatientResolution): AggregateView {
  const found = resolution.outcomes.flatMap((o) => (o.status === 'found' ? [o] : []));
  const refused = resolution.outcomes.filter((o): o is AmbiguousOutcome | FailedOutcome => o.status === 'ambiguous' || o.status === 'failed');
  return Object.freeze({
    identifier: resolution.query,
    sources: found.map((o) => o.source),
    ids: Object.freeze(Object.fromEntries(found.map((o) => [o.source, o.id]))),
    resolution,
    refused: refused.map((o) => o.source),
    outcomes: refused.map(refusedEntry),
  });
}

/** The OperationOutcome entry of a source that is not asked: ambiguous (`multiple-matches`) or failed. */
function refusedEntry(o: AmbiguousOutcome | FailedOutcome): BundleEntry {
  const code = o.status === 'ambiguous' ? 'multiple-matches' : o.code === 'ERR_TIMEOUT' ? 'timeout' : 'exception';
  const text = `source ${JSON.stringify(o.source)} was not asked: the patient is ${o.status === 'ambiguous' ? 'ambiguous there' : 'unknown there (the source failed during resolution)'}: ${o.reason}`;
  return { resource: { ...operationOutcome('error', code, text), meta: { tag: [{ system: SOURCE_TAG_SYSTEM, code: o.source }] } }, search: { mode: 'outcome' } };
}
