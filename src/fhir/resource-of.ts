/**
 * The map from a resource type name to its interface.
 * @module
 */
import type { ResourceMap } from './generated/resources.js';
import type { ResourceType } from './generated/resource-types.js';

/**
 * The interface of the resource type named `T`: `ResourceOf<'Patient'>` is `Patient`. A union of names
 * gives the union of their interfaces. Use it to type functions that take a resource type name.
 *
 * @example
 * ```ts
 * async function first<T extends ResourceType>(type: T): Promise<ResourceOf<T> | undefined> {
 *   const bundle = await gw.search(type, { _count: 1 });
 *   return bundle.entry?.[0]?.resource;
 * }
 * const p = await first('Patient');   // Patient | undefined
 * ```
 */
export type ResourceOf<T extends ResourceType> = ResourceMap[T];
