/**
 * What the facade's CapabilityStatements say of security: the facade's own (its callers), never a
 * source's (whose OAuth endpoints are the gateway's business, and whose addresses must not show).
 * @module
 */

/** `rest[].security` of every statement the facade serves. */
export const FACADE_SECURITY: Readonly<Record<string, unknown>> = Object.freeze({
  description: 'An API key (X-API-Key, or Authorization: Bearer) or a bearer JWT of a configured issuer; each caller is held to its policy (sources, SMART scopes, patient compartment).',
});
