/**
 * The `meta.tag` that names the source a resource (or an outcome about a source) came from.
 * @module
 */

/**
 * The `meta.tag` system that marks which source an aggregated resource came from (`code` = source name).
 *
 * @example
 * ```ts
 * const fromEpic = bundle.entry?.filter((e) => e.resource?.meta?.tag?.some((t) => t.system === SOURCE_TAG_SYSTEM && t.code === 'epic'));
 * ```
 */
export const SOURCE_TAG_SYSTEM = 'urn:fhirgate:source';
