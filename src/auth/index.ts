/**
 * Authentication for sources: connection strings, OAuth 2.0 tokens, JWT client assertions.
 * @module
 */
export { DEFAULT_SCOPE, parseConnectionString } from './parse-connection-string.js';
export type { SourceConfig } from './source-config.js';
export type { PublicJWK } from './key-ring.js';
