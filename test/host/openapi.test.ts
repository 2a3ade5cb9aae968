import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { createServiceAPI } from '../../src/host/index.js';
import { VERSION } from '../../src/version.js';
import { json } from '../../src/mount/index.js';
import { captureLogger } from '../support/logger.js';
import { startApp } from '../support/serve.js';
import { call, checkOpenApi, FakeGateway, FakeService } from './helpers.js';

test('/openapi.json documents the default routes, components under their prefix and custom routes', async (t) => {
  const gw = new FakeGateway({
    routes: [{ method: 'GET', path: '/transform/:type/:id', handle: () => json(200, {}) }],
    openapi: () => ({
      '/transform/Patient/{id}': { get: { summary: 'Transform Patient', operationId: 'transform', parameters: [{ name: 'source', in: 'query', schema: { type: 'string' } }], responses: { 200: { description: 'ok' } } } },
      '/metadata': { get: { summary: 'Capabilities', operationId: 'transform', responses: { 200: { description: 'ok' } } } },
    }),
  });
  const cds = new FakeService({
    defaultPath: '/cds',
    routes: [{ method: 'GET', path: '/cds-services', public: true, handle: () => json(200, {}) }],
    openapi: () => ({ '/cds-services': { get: { summary: 'Discovery', responses: { 200: { description: 'ok' } } } }, '': { post: { responses: { 200: { description: 'root' } } } } }),
  });
  const { base } = await startApp(t, { title: 'Doc test', version: '3.1.4', description: 'described', apiKeys: ['k'] }, (a) => {
    a.registerGateway(gw, { path: '/api/fhir' });
    a.registerService(cds);
    a.get('/summary/:id', { summary: 'Summary', description: 'One patient', query: { sources: { array: true, description: 'which' }, limit: { type: 'integer', required: true } } }, () => 1);
    a.post('/notes/:noteId/tags/:tag', { tags: ['notes'] }, () => 1);
    a.get('/dup', () => 1);
    a.post('/dup', () => 1);
  });
  const res = await call(base, '/openapi.json');
  assert.equal(res.status, 200);
  const doc = res.json();
  checkOpenApi(doc);
  assert.deepEqual(doc.info, { title: 'Doc test', version: '3.1.4', description: 'described', 'x-fhirgate-version': VERSION });
  for (const path of ['/', '/health', '/gateway/status', '/openapi.json', '/docs']) assert.ok(doc.paths[path]?.get, path);
  const transform = doc.paths['/api/fhir/transform/Patient/{id}'].get;
  assert.equal(transform.summary, 'Transform Patient');
  assert.deepEqual(transform.tags, ['FakeGateway']);
  assert.deepEqual(transform.parameters.map((p: any) => `${p.in}:${p.name}`), ['query:source', 'path:id']);
  assert.equal(doc.paths['/api/fhir/metadata'].get.operationId, 'transform_2');
  assert.deepEqual(doc.paths['/cds/cds-services'].get.security, [], 'a public component route needs no key');
  assert.ok(doc.paths['/cds'].post, 'the "" path is the prefix itself');
  const summary = doc.paths['/summary/{id}'].get;
  assert.equal(summary.summary, 'Summary');
  assert.deepEqual(summary.parameters, [
    { name: 'sources', in: 'query', required: false, description: 'which', schema: { type: 'array', items: { type: 'string' } }, style: 'form', explode: true },
    { name: 'limit', in: 'query', required: true, schema: { type: 'integer' } },
    { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
  ]);
  assert.ok(doc.paths['/notes/{noteId}/tags/{tag}'].post.requestBody);
  assert.deepEqual(doc.paths['/notes/{noteId}/tags/{tag}'].post.tags, ['notes']);
  assert.notEqual(doc.paths['/dup'].get.operationId, doc.paths['/dup'].post.operationId);
  assert.ok(doc.components.securitySchemes.headerKey);
});

test('a component whose openapi() throws is left out, and the document still builds', async (t) => {
  const { base, log } = await startApp(t, {}, (a) => a.registerGateway(new FakeGateway({ openapi: () => { throw new Error('nope'); } })));
  const doc = (await call(base, '/openapi.json')).json();
  checkOpenApi(doc);
  assert.equal(doc.components.securitySchemes, undefined);
  assert.ok(log.lines.some((l) => l.level === 'error' && l.message === 'openapi of FakeGateway failed'));
});

test('/docs is one self-contained page with a strict CSP that allows exactly its inline script and style', async (t) => {
  const { base } = await startApp(t);
  const res = await call(base, '/docs');
  assert.equal(res.status, 200);
  assert.match(String(res.headers['content-type']), /^text\/html/);
  const html = res.text;
  const csp = String(res.headers['content-security-policy']);
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /connect-src 'self'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.doesNotMatch(html, /(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i, 'no external URL in src= or href=');
  assert.doesNotMatch(html, /<script[^>]*\ssrc=/i);
  assert.deepEqual(html.match(/<link\b[^>]*>/gi), ['<link rel="icon" href="data:,">'], 'only the empty inline favicon');
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
  const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!);
  assert.equal(scripts.length, 1);
  assert.equal(styles.length, 1);
  assert.doesNotMatch(styles[0]!, /@import|url\(/i, 'the style loads nothing');
  const hash = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;
  assert.ok(csp.includes(`script-src ${hash(scripts[0]!)}`));
  assert.ok(csp.includes(`style-src ${hash(styles[0]!)}`));
  assert.doesNotThrow(() => new Function(scripts[0]!), 'the inline script parses');
  assert.match(scripts[0]!, /'openapi\.json'/, 'fetches the document by a relative URL');
  assert.match(scripts[0]!, /X-API-Key/);
  assert.match(html, /id="api-key"/);
});

test('buildOpenAPI-backed documents of a bare app pass the structural checks', async () => {
  const app = createServiceAPI({ logger: captureLogger(), apiKeys: [] });
  const { createServer } = await import('node:http');
  const server = createServer(app.handler).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const address = server.address();
  const res = await call(`http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`, '/openapi.json');
  checkOpenApi(res.json());
  await new Promise((resolve) => server.close(resolve));
  await app.close();
});
