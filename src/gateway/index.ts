/**
 * The gateways: `AsyncFHIRGateway` (its options, pool status and modify handle), the synchronous
 * `FHIRGateway`, the handler registry and the aggregation helper.
 * @module
 */
export { AsyncFHIRGateway } from './async-gateway.js';
export type { CallOptions } from './async-gateway.js';
export type { AsyncFHIRGatewayOptions } from './options.js';
export { GATEWAY_DEFAULTS } from './options.js';
export { ModifyHandle, MODIFY_ATTEMPTS } from './modify.js';
export type { ModifyFn } from './modify.js';
export type { PoolStatus, SourcePoolStatus } from './pool-status.js';
export { FHIRGateway } from './sync-gateway.js';
export type { FHIRGatewayOptions } from './sync/options.js';
export * from './handlers/index.js';
