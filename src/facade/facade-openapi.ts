/**
 * The facade's part of `/openapi.json`: each source's FHIR base (and the federated base) with the
 * interactions it answers, so that `/docs` shows the facade per source.
 * @module
 */
import type { OpenAPIOperation, OpenAPIParameter, OpenAPIPaths } from '../mount/index.js';

const FHIR = { 'application/fhir+json': { schema: { type: 'object' } } };
const TYPE: OpenAPIParameter = { name: 'type', in: 'path', required: true, schema: { type: 'string' }, example: 'Patient' };
const ID: OpenAPIParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
const VID: OpenAPIParameter = { name: 'vid', in: 'path', required: true, schema: { type: 'string' } };

function op(tag: string, summary: string, parameters: OpenAPIParameter[], body = false): OpenAPIOperation {
  return {
    summary,
    tags: [tag],
    parameters,
    ...(body ? { requestBody: { required: true, content: FHIR } } : {}),
    responses: { 200: { description: 'FHIR JSON', content: FHIR }, 401: { description: 'no valid credentials' }, 403: { description: 'refused by the caller policy' }, 404: { description: 'not known (or outside the caller\'s compartment)' }, 429: { description: 'over the source\'s rate limit (Retry-After)' } },
  };
}

/** The OpenAPI paths of the facade over `sources`, plus the federated base `federated`. */
export function facadeOpenAPI(sources: readonly string[], federated: string): OpenAPIPaths {
  const paths: OpenAPIPaths = {};
  for (const s of sources) {
    const tag = `FHIR base ${s}`;
    paths[`/${s}`] = { post: op(tag, `batch or transaction on ${s}`, [], true) };
    paths[`/${s}/metadata`] = { get: op(tag, `CapabilityStatement of ${s}`, []) };
    paths[`/${s}/{type}`] = { get: op(tag, `search ${s}`, [TYPE]), post: op(tag, `create on ${s} (If-None-Exist: conditional)`, [TYPE], true) };
    paths[`/${s}/{type}/_search`] = { post: op(tag, `search ${s} (form body)`, [TYPE]) };
    paths[`/${s}/{type}/_history`] = { get: op(tag, `type history on ${s}`, [TYPE]) };
    paths[`/${s}/{type}/{id}`] = { get: op(tag, `read on ${s}`, [TYPE, ID]), put: op(tag, `update on ${s}`, [TYPE, ID], true), patch: op(tag, `patch on ${s}`, [TYPE, ID], true), delete: op(tag, `delete on ${s}`, [TYPE, ID]) };
    paths[`/${s}/{type}/{id}/_history`] = { get: op(tag, `instance history on ${s}`, [TYPE, ID]) };
    paths[`/${s}/{type}/{id}/_history/{vid}`] = { get: op(tag, `vread on ${s}`, [TYPE, ID, VID]) };
  }
  const federatedTag = 'federated FHIR base';
  paths[`/${federated}/metadata`] = { get: op(federatedTag, 'CapabilityStatement of the federated base', []) };
  paths[`/${federated}/{type}`] = { get: op(federatedTag, 'search every source the caller may search', [TYPE]) };
  paths[`/${federated}/{type}/_search`] = { post: op(federatedTag, 'search every source the caller may search (form body)', [TYPE]) };
  paths[`/${federated}/{type}/{id}`] = { get: op(federatedTag, 'read of an id the federated base issued (<source>.<id>)', [TYPE, ID]) };
  paths[`/${federated}/{type}/{id}/_history/{vid}`] = { get: op(federatedTag, 'vread of an id the federated base issued', [TYPE, ID, VID]) };
  return paths;
}
