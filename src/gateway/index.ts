/**
 * The gateways: `AsyncFHIRGateway` (its options, pool status and modify handle), the synchronous
 * `FHIRGateway`, the handler types, patient identity across sources, the aggregation helper and the builders of transaction and
 * batch entries.
 * @module
 */
export type { AggregateHandler, AggregatePatient, TransformHandler } from './http-face/registry.js';
export { type AggregateSourcesOptions, SOURCE_TAG_SYSTEM, aggregateSources } from './aggregate-sources.js';
export { AsyncFHIRGateway } from './async-gateway.js';
export { type AsyncFHIRGatewayOptions, GATEWAY_DEFAULTS, type GatewayRetryOptions } from './core/options.js';
export type { BundleKind } from './core/request-bundle.js';
export type { CallOptions, CreateOptions } from './core/call-options.js';
export type { FHIRExchangeRequest, FHIRExchangeResponse } from './core/exchange.js';
export { FHIRGateway, type SyncPagingOptions } from './sync-gateway.js';
export type { FHIRGatewayOptions } from './sync/options.js';
export type { ModifyFn, ModifyHandle } from './modify.js';
export { IDENTITY_DEFAULTS, type IdentityOptions } from './core/identity-options.js';
export type { AbsentOutcome, AmbiguousOutcome, FailedOutcome, FoundOutcome, PatientQuery, PatientResolution, ResolveOptions, SourceOutcome } from './identity/types.js';
export type { PageOptions, SearchAllOptions } from './core/paging.js';
export type { PoolStatus, SourcePoolStatus } from './core/pool-status.js';
export type { SearchParamValue, SearchParams } from './core/search-params.js';
export { createEntry, deleteEntry, readEntry, requestBundle, searchEntry, updateEntry } from './core/bundle-entries.js';
export type { SourceOptions, RotateKeyOptions, RotatedKey, JWKSet } from './core/source-keys.js';
export type { ProxyOptions } from '../http/proxy-options.js';
export type { TLSOptions } from '../http/tls-options.js';
export type { BulkExportAllOptions, BulkExportBaseOptions, BulkExportOptions, BulkItem, BulkLevel } from './bulk/index.js';
