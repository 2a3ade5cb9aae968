/**
 * Authentication for sources: connection strings, OAuth 2.0 tokens, JWT client assertions.
 * @module
 */
export { parseConnectionString, DEFAULT_SCOPE, isLoopback } from './parse-connection-string.js';
export type { SourceConfig, SourceAuth, ClientSecretAuth, JWTAssertionAuth, ClientSecretMethod } from './source-config.js';
export { TokenManager, refreshMargin } from './token-manager.js';
export type { TokenManagerOptions } from './token-manager.js';
export { fetchToken, formEncode } from './fetch-token.js';
export type { Send, TokenAnswer, Credentials } from './fetch-token.js';
export { loadAssertionKey } from './load-key.js';
export type { AssertionKey } from './load-key.js';
export { signAssertion, ASSERTION_LIFETIME_SECONDS } from './sign-assertion.js';
export type { AssertionClaims } from './sign-assertion.js';
