/**
 * fhirgate: one interface to many FHIR R4 servers, and the host that serves the endpoints clinical
 * systems call. This entry never loads `saxes`: the NoteReader SOAP service lives in `fhirgate/soap`, the
 * sandbox in `fhirgate/sandbox`.
 *
 * @example
 * ```ts
 * import { AsyncFHIRGateway, createServiceAPI } from 'fhirgate';
 * await using gw = new AsyncFHIRGateway();
 * gw.addSource('epic', process.env.EPIC_FHIR!);
 * const patient = await gw.read('Patient', '123', 'epic');
 * ```
 * @module
 */
export {
  AsyncFHIRGateway,
  FHIRGateway,
  GATEWAY_DEFAULTS,
  IDENTITY_DEFAULTS,
  aggregateSources,
  SOURCE_TAG_SYSTEM,
  createEntry,
  updateEntry,
  deleteEntry,
  readEntry,
  searchEntry,
  requestBundle,
  type AsyncFHIRGatewayOptions,
  type GatewayRetryOptions,
  type CreateOptions,
  type PageOptions,
  type SearchAllOptions,
  type SyncPagingOptions,
  type BundleKind,
  type FHIRGatewayOptions,
  type CallOptions,
  type ModifyFn,
  type ModifyHandle,
  type PoolStatus,
  type SourcePoolStatus,
  type TransformHandler,
  type AggregateHandler,
  type AggregatePatient,
  type IdentityOptions,
  type PatientQuery,
  type PatientResolution,
  type ResolveOptions,
  type SourceOutcome,
  type FoundOutcome,
  type AbsentOutcome,
  type AmbiguousOutcome,
  type FailedOutcome,
  type AggregateSourcesOptions,
  type SearchParams,
  type SearchParamValue,
  type SourceOptions,
  type ProxyOptions,
  type TLSOptions,
  type RotateKeyOptions,
  type RotatedKey,
  type JWKSet,
  type BulkItem,
  type BulkLevel,
  type BulkExportOptions,
  type BulkExportBaseOptions,
  type BulkExportAllOptions,
  type FHIRExchangeRequest,
  type FHIRExchangeResponse,
} from './gateway/index.js';
export { parseConnectionString, DEFAULT_SCOPE, type SourceConfig, type PublicJWK } from './auth/index.js';
export {
  createServiceAPI,
  ServiceAPI,
  getGateway,
  getAllGateways,
  getApp,
  reply,
  createJSONLogger,
  createLogger,
  type LogFormat,
  type LoggerOptions,
  type ServiceAPIOptions,
  type OpenAPIExamples,
  type OperationExample,
  type MountOptions,
  type CORSOptions,
  type CustomHandler,
  type CustomRouteOptions,
  type QueryParameterSpec,
  type JSONLoggerOptions,
  type LogLevel,
  type Readiness,
  type RouteContext,
  type Reply,
} from './host/index.js';
export { CDSHooksService } from './cds/index.js';
export {
  LocalEventDispatcher,
  localHandler,
  CloudEventsDispatcher,
  type LocalEventDispatcherOptions,
  type CloudEventsDispatcherOptions,
  type CloudEventsMode,
  type CloudEvent,
  type DeliveryCounts,
  type EventDispatcher,
  type EventHandler,
  type EventPair,
  type EventPayload,
  type Unregister,
} from './events/index.js';
export { MemoryStore, type KeyValueStore } from './lib/key-value-store.js';
export type { Logger } from './mount/index.js';
export type { HandlerModuleContext, HandlerSetup } from './cli/handler-module.js';
export * from './errors.js';
export {
  RESOURCE_TYPES,
  isResourceType,
  isFHIRId,
  operationOutcome,
  searchsetBundle,
  type SearchsetBundleOptions,
  type IssueSeverity,
  type IssueType,
  type ResourceType,
  type R4OnlyResourceType,
  type ResourceOf,
  type Resource,
  type Bundle,
  type BundleEntry,
  type OperationOutcome,
  type Patient,
  type Observation,
  type Condition,
  type Extension,
  type HumanName,
} from './fhir/index.js';
