/**
 * What every federated search over the fixed-response upstream's two sources must do and nothing else, shared by the
 * fan-out floors (facade-fanout-node.ts, facade-fanout-fastify.ts) so that both do the same work on their own stack.
 */
import { SEARCH_BASES } from './fixed-patient.js';

/** The path each source is asked for the federated `url` (`/fhir/all/Patient?…`): the same query under each source's base. */
export function sourcePaths(url: string): string[] {
  const query = url.slice('/fhir/all'.length);
  return Object.values(SEARCH_BASES).map((base) => `${base}${query}`);
}

/** One searchset Bundle of the `entry` arrays of the sources' answers (their JSON texts), in order. */
export function searchset(answers: string[]): string {
  const entry = answers.flatMap((text) => (JSON.parse(text) as { entry?: unknown[] }).entry ?? []);
  return JSON.stringify({ resourceType: 'Bundle', type: 'searchset', entry });
}
