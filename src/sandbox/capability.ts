/**
 * The sandbox's self-descriptions: the CapabilityStatement at `[base]/metadata` and the SMART
 * configuration at `[base]/.well-known/smart-configuration`. Both are public.
 * @module
 */
import { RESOURCE_TYPES, type CapabilityStatement } from '../fhir/index.js';
import type { SandboxContext } from './context.js';
import { searchParamsFor } from './search-params.js';
import { ASSERTION_ALGORITHMS, DEFAULT_SCOPE } from './token-endpoint.js';

const SEARCH_TYPE = { string: 'string', token: 'token', date: 'date', reference: 'reference' } as const;

/**
 * The CapabilityStatement of a running sandbox: every R4B resource type with read, vread, create,
 * update, delete and search, and the search parameters each one takes; transaction and batch at the base.
 */
export function capabilityStatement(ctx: SandboxContext): CapabilityStatement {
  return {
    resourceType: 'CapabilityStatement',
    status: 'active',
    date: '2024-01-01',
    kind: 'instance',
    software: { name: 'fhirgate sandbox' },
    implementation: { description: 'fhirgate embedded sandbox (in memory, for demos and tests)', url: ctx.fhirBase },
    fhirVersion: '4.0.1',
    format: ['json'],
    rest: [{
      mode: 'server',
      security: {
        service: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/restful-security-service', code: 'SMART-on-FHIR' }] }],
        extension: [{
          url: 'http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris',
          extension: [{ url: 'token', valueUri: ctx.tokenUrl }],
        }],
      },
      resource: RESOURCE_TYPES.map((type) => ({
        type,
        versioning: 'versioned',
        readHistory: true,
        updateCreate: true,
        conditionalCreate: true,
        interaction: (['read', 'vread', 'create', 'update', 'delete', 'search-type'] as const).map((code) => ({ code })),
        searchParam: Object.entries(searchParamsFor(type)).map(([name, def]) => ({ name, type: SEARCH_TYPE[def.kind] })),
      })),
      interaction: [{ code: 'transaction' }, { code: 'batch' }],
    }],
  };
}

/** The SMART App Launch configuration document (`.well-known/smart-configuration`). */
export function smartConfiguration(ctx: SandboxContext): Record<string, unknown> {
  return {
    token_endpoint: ctx.tokenUrl,
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
    token_endpoint_auth_signing_alg_values_supported: [...ASSERTION_ALGORITHMS],
    scopes_supported: DEFAULT_SCOPE.split(' '),
    capabilities: ['client-confidential-symmetric', 'client-confidential-asymmetric'],
  };
}
