/**
 * The FHIR RESTful interactions an upstream call is labelled with in `/metrics`: a fixed set, so that a
 * label never holds an id or a URL.
 * @module
 */

/** Every interaction label; `other` for what is none of them (a token request, a bulk file, a status URL). */
export const UPSTREAM_INTERACTIONS = Object.freeze(['read', 'vread', 'search', 'history', 'create', 'update', 'patch', 'delete', 'operation', 'capabilities', 'batch', 'other'] as const);

/** One of {@link UPSTREAM_INTERACTIONS}. */
export type UpstreamInteraction = (typeof UPSTREAM_INTERACTIONS)[number];
