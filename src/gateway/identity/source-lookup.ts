/**
 * One source's outcome for a set of identifiers: every identifier searched, each answer checked (the
 * record must really carry the identifier: a server that ignores the parameter makes no one match),
 * `replaced-by` followed, and the matches counted: one record found, none absent, two or more ambiguous.
 * Any failure to ask makes the source `failed`, never a guess.
 * @module
 */
import { FhirgateError, isFhirgateError } from '../../errors.js';
import { describeFailure } from '../core/describe-failure.js';
import { isMatch } from '../core/paging.js';
import { identifierText, type Identifier } from './patient-query.js';
import { carries, survivorOf, type Survivor } from './patient-links.js';
import type { PatientReader, PatientRecord } from './patient-reader.js';
import type { FailedOutcome, SourceOutcome } from './types.js';

/** What one source is asked, and with what. */
export interface SourceLookup {
  readonly reader: PatientReader;
  readonly source: string;
  /** The identifiers this source is believed for (may be empty: the source is then not asked). */
  readonly identifiers: readonly Identifier[];
  readonly signal: AbortSignal | undefined;
  /** The gateway's request time-out in seconds, for the reason of a time-out. */
  readonly timeoutSeconds: number;
}

/** The outcome of one source; never rejects. */
export async function lookUpSource(l: SourceLookup): Promise<SourceOutcome> {
  if (l.identifiers.length === 0) return { source: l.source, status: 'absent', reason: 'not asked: the patient has no identifier this source is believed for' };
  try {
    const matches = await Promise.all(l.identifiers.map((identifier) => matchesOf(l, identifier)));
    return judge(l.source, l.identifiers, matches);
  } catch (err) {
    return failed(l.source, err, l.timeoutSeconds);
  }
}

/** A source's failure as an outcome: its code and a reason fit for a client. */
export function failed(source: string, err: unknown, timeoutSeconds: number): FailedOutcome {
  return { source, status: 'failed', code: isFhirgateError(err) ? err.code : 'ERR_FHIR_RESPONSE', reason: describeFailure(err, timeoutSeconds)[1] };
}

/** The surviving records one identifier leads to in the source. */
async function matchesOf(l: SourceLookup, identifier: Identifier): Promise<Survivor[]> {
  const bundle = await l.reader.search(l.source, identifier, l.signal);
  const entries = Array.isArray(bundle.entry) ? bundle.entry : [];
  const carriers = entries
    .filter((e) => isMatch(e) && e.resource?.resourceType === 'Patient' && typeof e.resource.id === 'string' && carries(e.resource as PatientRecord, identifier))
    .map((e) => e.resource as PatientRecord & { id: string });
  const unique = [...new Map(carriers.map((p) => [p.id, p])).values()];
  const survivors = await Promise.all(unique.map((p) => survivorOf(l.reader, l.source, p.id, p, l.signal)));
  const more = Array.isArray(bundle.link) && bundle.link.some((link) => link.relation === 'next');
  if (more && new Set(survivors.map((s) => ('id' in s ? s.id : s.problem))).size < 2) {
    // More records than one page, but fewer than two carriers on it: the source does not filter by identifier.
    throw new FhirgateError('ERR_FHIR_RESPONSE', `the search for ${identifier.system}|… answered more than one page: the source does not search by identifier`);
  }
  return survivors;
}

/** One record across every identifier → found; none → absent; anything else → ambiguous, saying why. */
function judge(source: string, identifiers: readonly Identifier[], matches: readonly Survivor[][]): SourceOutcome {
  const problem = matches.flat().find((s): s is { problem: string } => 'problem' in s);
  const ids = [...new Set(matches.flat().flatMap((s) => ('id' in s ? [s.id] : [])))];
  if (problem !== undefined) return { source, status: 'ambiguous', reason: problem.problem, ids };
  if (ids.length === 0) return { source, status: 'absent', reason: 'no record carries the identifiers' };
  if (ids.length > 1) {
    const crowded = identifiers.findIndex((_, i) => new Set(matches[i]!.map((s) => (s as { id: string }).id)).size > 1);
    const reason =
      crowded >= 0
        ? `${identifierText(identifiers[crowded]!)} is carried by ${ids.length} different records (${ids.map((id) => `Patient/${id}`).join(', ')})`
        : `the identifiers point to different records (${identifiers.map((identifier, i) => `${identifierText(identifier)} → ${matches[i]!.map((s) => `Patient/${(s as { id: string }).id}`).join(', ') || 'none'}`).join('; ')})`;
    return { source, status: 'ambiguous', reason, ids };
  }
  const found = matches.flat().find((s): s is { id: string; seeAlso: readonly string[] } => 'id' in s)!;
  return { source, status: 'found', id: found.id, seeAlso: found.seeAlso };
}

