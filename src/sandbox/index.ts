/**
 * `fhirgate/sandbox`: an embedded in-memory FHIR R4 server and OAuth 2.0 token endpoint for demos and
 * tests. Nothing in the library imports it.
 *
 * @example
 * ```ts
 * import { startSandbox } from 'fhirgate/sandbox';
 * const sandbox = await startSandbox();
 * console.log(sandbox.connectionString());
 * await sandbox.close();
 * ```
 * @module
 */
export { startSandbox, type Sandbox } from './start-sandbox.js';
export { DEFAULTS as SANDBOX_DEFAULTS, type SandboxOptions, type SandboxClient, type SandboxSecretClient, type SandboxKeyClient, type SandboxJWKSClient, type SandboxSeed } from './options.js';
export type { ConnectionStringOptions } from './connection-string.js';
export type { SandboxFaults, FailNextOptions, FaultTarget } from './faults.js';
export type { SandboxStats, RequestCounts, RequestKind, TokenAuthMethod } from './stats.js';
export { seedResources, MRN_SYSTEM, type SeedVariant } from './seed.js';
