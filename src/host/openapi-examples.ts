/**
 * Examples an application adds to its OpenAPI document (`createServiceAPI({ openapiExamples })`): values
 * for path and query parameters, a request body and a response body, per operation. `/docs` fills its
 * forms with them, so that "Send" works at once with ids the servers really have.
 * @module
 */
import type { Logger } from '../mount/index.js';
import { isJSONObject } from '../lib/json-object.js';
import { keysOf, onlyKnownKeys } from '../lib/options.js';

/**
 * The examples of one operation.
 *
 * @example
 * ```ts
 * const example: OperationExample = { parameters: { id: 'a-patient-1', source: 'ehr-a' }, response: { resourceType: 'Patient', id: 'a-patient-1' } };
 * ```
 */
export interface OperationExample {
  /** Path and query parameter values by name (an array for a repeated query parameter). */
  readonly parameters?: Readonly<Record<string, string | number | boolean | readonly string[]>>;
  /** The request body (an object for JSON, a string for XML). */
  readonly body?: unknown;
  /** The body of the operation's success answer (its first 2xx response). */
  readonly response?: unknown;
}

/**
 * Examples by operation, keyed `'<METHOD> <path>'` with the path as `/openapi.json` shows it
 * (`'GET /fhir/transform/Patient/{id}'`).
 *
 * @example
 * ```ts
 * const examples: OpenAPIExamples = { 'POST /cds/cds-services/patient-overview': { body: { hook: 'patient-view', hookInstance: '…', context: { patientId: 'a-patient-1' } } } };
 * ```
 */
export type OpenAPIExamples = Readonly<Record<string, OperationExample>>;

/** The keys of an {@link OperationExample}; any other is refused with the nearest of these. */
export const OPERATION_EXAMPLE_KEYS = keysOf<OperationExample>({ parameters: true, body: true, response: true });

const KEY = /^(GET|POST|PUT|PATCH|DELETE) (\/\S*)$/;

/**
 * Checks the `openapiExamples` option once: keys `'<METHOD> /path'`, values objects with only
 * `parameters`, `body` and `response`. A `TypeError` names the key.
 */
export function checkOpenAPIExamples(value: unknown): OpenAPIExamples {
  if (value === undefined) return Object.freeze({});
  if (!isJSONObject(value)) throw new TypeError('options.openapiExamples must be an object');
  for (const [key, example] of Object.entries(value)) {
    const where = `options.openapiExamples[${JSON.stringify(key.slice(0, 80))}]`;
    if (!KEY.test(key)) throw new TypeError(`${where}: the key must be "<METHOD> /path", such as "GET /fhir/transform/Patient/{id}"`);
    if (!isJSONObject(example)) throw new TypeError(`${where} must be an object`);
    onlyKnownKeys(example, OPERATION_EXAMPLE_KEYS, where);
    const { parameters } = example as OperationExample;
    if (parameters !== undefined && !isJSONObject(parameters)) {
      throw new TypeError(`${where}.parameters must be an object of values by parameter name`);
    }
  }
  return Object.freeze({ ...(value as OpenAPIExamples) });
}

type Doc = Record<string, unknown> & { paths: Record<string, Record<string, Record<string, unknown>>> };
type Media = Record<string, unknown>;

/**
 * Returns a copy of `doc` with the examples set: `example` on each named parameter, on the request
 * body's media types and on the first 2xx response's media types. Also returns what matched nothing (an
 * operation or a parameter), for a warning.
 */
export function applyOpenAPIExamples(doc: Record<string, unknown>, examples: OpenAPIExamples): { doc: Record<string, unknown>; unmatched: string[] } {
  const unmatched: string[] = [];
  if (Object.keys(examples).length === 0) return { doc, unmatched };
  const copy = structuredClone(doc) as Doc;
  for (const [key, example] of Object.entries(examples)) {
    const [, method, path] = KEY.exec(key) as unknown as [string, string, string];
    const operation = copy.paths[path]?.[method.toLowerCase()];
    if (operation === undefined) {
      unmatched.push(key);
      continue;
    }
    const parameters = (operation.parameters ?? []) as Array<{ name: string; example?: unknown }>;
    for (const [name, value] of Object.entries(example.parameters ?? {})) {
      const parameter = parameters.find((p) => p.name === name);
      if (parameter === undefined) unmatched.push(`${key} parameter ${name}`);
      else parameter.example = value;
    }
    if (example.body !== undefined) {
      const body = operation.requestBody as { content?: Record<string, Media> } | undefined;
      if (body?.content === undefined) unmatched.push(`${key} body`);
      else for (const media of Object.values(body.content)) media.example = example.body;
    }
    if (example.response !== undefined) {
      const responses = (operation.responses ?? {}) as Record<string, { content?: Record<string, Media> }>;
      const success = Object.keys(responses).sort().find((code) => /^2\d\d$/.test(code) && responses[code]?.content !== undefined);
      if (success === undefined) unmatched.push(`${key} response`);
      else for (const media of Object.values(responses[success]!.content!)) media.example = example.response;
    }
  }
  return { doc: copy, unmatched };
}

/** Logs one warning per example that matched nothing in `doc` (a typo in a path or a parameter name). */
export function warnUnmatchedExamples(unmatched: readonly string[], logger: Logger): void {
  for (const what of unmatched) logger.warn('openapiExamples: nothing in the OpenAPI document matches', { example: what });
}
