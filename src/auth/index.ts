/**
 * Authentication for sources: connection strings, OAuth 2.0 tokens, JWT client assertions.
 * @module
 */
export { parseConnectionString, DEFAULT_SCOPE, isLoopback, isAllowedEndpoint } from './parse-connection-string.js';
export type { SourceConfig, SourceAuth, ClientSecretAuth, JwtAssertionAuth, ClientSecretMethod } from './source-config.js';
export { TokenManager, refreshMargin } from './token-manager.js';
export type { TokenManagerOptions } from './token-manager.js';
export { fetchToken, formEncode } from './fetch-token.js';
export type { Send, TokenAnswer, Credentials } from './fetch-token.js';
export { loadAssertionKey } from './load-key.js';
export type { AssertionKey } from './load-key.js';
export { signAssertion, ASSERTION_LIFETIME_SECONDS } from './sign-assertion.js';
export type { AssertionClaims } from './sign-assertion.js';
export { KeyRing, chooseAlgorithm, signingAlgorithms } from './key-ring.js';
export type { AssertionAlg, PublicJwk, Signer } from './key-ring.js';
export { discoverSmart, OAUTH_URIS_EXTENSION } from './smart-discovery.js';
export type { SmartConfiguration } from './smart-discovery.js';
export { checkDiscovered } from './discovered-endpoint.js';
export type { TokenEndpoint, TokenAuthMethod } from './discovered-endpoint.js';
