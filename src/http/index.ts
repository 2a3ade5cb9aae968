/**
 * The transport: `request()` with retries, and the shared keep-alive {@link AgentPool}.
 * @module
 */
export { request } from './request.js';
export type { HTTPRequestOptions, HTTPResponse } from './request-options.js';
export { HTTP_DEFAULTS, checkHeaders, checkRequestOptions } from './request-options.js';
export type { CheckedRequestOptions } from './request-options.js';
export { AgentPool } from './agent-pool.js';
export { POOL_DEFAULTS } from './pool-types.js';
export type { AgentPoolOptions, AgentPoolStatus, OriginPoolStatus } from './pool-types.js';
export { RETRY_DEFAULTS, checkRetryOptions } from './retry-policy.js';
export type { RetryOptions, RetryPolicy } from './retry-policy.js';
export { USER_AGENT } from './user-agent.js';
