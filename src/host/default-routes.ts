/**
 * The host's own endpoints: `GET /`, `/health`, `/health/ready`, `/gateway/status`, `/openapi.json`, `/docs`.
 * @module
 */
import { json } from '../mount/index.js';
import type { OpenAPIOperation } from '../mount/index.js';
import { docsPage } from './docs-page.js';
import { HEALTH_SCHEMA, INFO_SCHEMA, OPENAPI_SCHEMA, READY_SCHEMA, STATUS_SCHEMA } from './default-schemas.js';
import { ERROR_RESPONSE } from './openapi.js';
import type { Endpoint } from './pipeline.js';

/** Where an app is in its life, as `/health/ready` reports it. */
export type Readiness = 'starting' | 'ready' | 'draining';

/** What the default endpoints read from the app, at request time. */
export interface DefaultRoutesView {
  /** The `GET /` document. */
  info(): Record<string, unknown>;
  /** False once the app is shutting down. */
  serving(): boolean;
  /** `starting` until the app listens, `ready` while it serves, `draining` once it is shutting down. */
  readiness(): Readiness;
  /** The `GET /gateway/status` document. */
  status(): Record<string, unknown>;
  /** The OpenAPI document. */
  openapi(): Record<string, unknown>;
}

const jsonResponse = (description: string, schema: Record<string, unknown>): OpenAPIOperation['responses'][string] => ({
  description,
  content: { 'application/json': { schema } },
});

function op(summary: string, description: string, schema: Record<string, unknown>, extra: OpenAPIOperation['responses'] = {}): OpenAPIOperation {
  return { summary, description, tags: ['host'], responses: { 200: jsonResponse('OK', schema), ...extra, default: ERROR_RESPONSE } };
}

const endpoint = (path: string, isPublic: boolean, operation: OpenAPIOperation, run: Endpoint['run']): Endpoint => ({
  method: 'GET',
  path,
  prefix: '',
  public: isPublic,
  operation,
  run,
});

/**
 * The default endpoints. `/health`, `/docs` and `/openapi.json` are listed as public here only for the
 * docs; whether they need an API key is decided by the app's `publicPaths` option.
 */
export function defaultEndpoints(view: DefaultRoutesView, publicPaths: readonly string[]): Endpoint[] {
  const isPublic = (path: string) => publicPaths.includes(path);
  const page = docsPage();
  return [
    endpoint('/', isPublic('/'), op('API summary', 'Name, version, description and the mounted gateways and services.', INFO_SCHEMA), () => json(200, view.info())),
    endpoint(
      '/health',
      isPublic('/health'),
      op('Health (liveness)', 'Answers 200 while serving and 503 once the app is shutting down, with the process id.', { ...HEALTH_SCHEMA, example: { status: 'healthy', pid: 4242 } }, {
        503: jsonResponse('Shutting down', { ...HEALTH_SCHEMA, example: { status: 'shutting down', pid: 4242 } }),
      }),
      () => (view.serving() ? json(200, { status: 'healthy', pid: process.pid }) : json(503, { status: 'shutting down', pid: process.pid })),
    ),
    endpoint(
      '/health/ready',
      isPublic('/health/ready'),
      op('Readiness', 'Answers 200 while the app takes traffic; 503 while it is starting and while it drains before shutting down.', { ...READY_SCHEMA, example: { status: 'ready' } }, {
        503: jsonResponse('Starting or draining', { ...READY_SCHEMA, example: { status: 'draining' } }),
      }),
      () => {
        const state = view.readiness();
        return json(state === 'ready' ? 200 : 503, { status: state });
      },
    ),
    endpoint('/gateway/status', isPublic('/gateway/status'), op('Gateway status', 'Every gateway and service with its status, and whether events are on.', STATUS_SCHEMA), () =>
      json(200, view.status()),
    ),
    endpoint('/openapi.json', isPublic('/openapi.json'), op('OpenAPI document', 'This document (OpenAPI 3.1).', OPENAPI_SCHEMA), () => json(200, view.openapi())),
    endpoint(
      '/docs',
      isPublic('/docs'),
      { summary: 'Interactive docs', description: 'An HTML page that renders this document.', tags: ['host'], responses: { 200: { description: 'HTML', content: { 'text/html': { schema: { type: 'string' }, example: '<!doctype html>\n<html lang="en">…</html>' } } }, default: ERROR_RESPONSE } },
      () => ({
        status: 200,
        headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': page.csp, 'cache-control': 'no-cache' },
        body: page.html,
      }),
    ),
  ];
}
