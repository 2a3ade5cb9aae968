/**
 * The gateways: `AsyncFHIRGateway` (its options, pool status and modify handle), the synchronous
 * `FHIRGateway`, the handler registry, the aggregation helper and the builders of transaction and
 * batch entries.
 * @module
 */
export { AsyncFHIRGateway } from './async-gateway.js';
export type { CallOptions, CreateOptions } from './call-options.js';
export type { PageOptions, SearchAllOptions } from './paging.js';
export { createEntry, updateEntry, deleteEntry, readEntry, searchEntry, requestBundle } from './bundle-entries.js';
export type { BundleKind } from './request-bundle.js';
export type { AsyncFHIRGatewayOptions, GatewayRetryOptions } from './options.js';
export { GATEWAY_DEFAULTS } from './options.js';
export { ModifyHandle, MODIFY_ATTEMPTS } from './modify.js';
export type { ModifyFn } from './modify.js';
export type { PoolStatus, SourcePoolStatus } from './pool-status.js';
export { FHIRGateway } from './sync-gateway.js';
export type { SyncPagingOptions } from './sync-gateway.js';
export type { FHIRGatewayOptions } from './sync/options.js';
export * from './handlers/index.js';
