/**
 * The gateway's handler registry and HTTP face, and the aggregation helper for aggregate handlers.
 * @module
 */
export { HandlerRegistry, type TransformHandler, type AggregateHandler, type HandlerKind } from './registry.js';
export { gatewayMountable } from './mountable.js';
export type { GatewayFacts } from './gateway-facts.js';
export { aggregateSources, SOURCE_TAG_SYSTEM, type AggregateSourcesOptions } from './aggregate-sources.js';
export type { SearchingGateway, SearchParams, SearchParamValue } from './search-source.js';
