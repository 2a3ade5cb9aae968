import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createServiceAPI } from '../../src/host/index.js';
import { startApp } from '../support/serve.js';
import { call } from '../support/host-helpers.js';

test('openapiExamples set parameter, request body and success response examples in /openapi.json', async (t) => {
  const { base, log } = await startApp(t, {
    openapiExamples: {
      'GET /summary/{id}': { parameters: { id: 'p-1', sources: ['a', 'b'] }, response: { id: 'p-1' } },
      'POST /notes': { body: { text: 'hello' } },
      'GET /nowhere': { parameters: { x: '1' } },
      'POST /notes/{id}': { body: 'x' },
    },
  }, (app) => {
    app.get('/summary/:id', { query: { sources: { array: true } } }, (ctx) => ({ id: ctx.params.id }));
    app.post('/notes', async (ctx) => ({ note: await ctx.json() }));
  });
  const doc = (await call(base, '/openapi.json')).json();
  const summary = doc.paths['/summary/{id}'].get;
  assert.deepEqual(summary.parameters.map((p: { name: string; example?: unknown }) => [p.name, p.example]), [['sources', ['a', 'b']], ['id', 'p-1']]);
  assert.deepEqual(summary.responses['200'].content['application/json'].example, { id: 'p-1' });
  assert.deepEqual(doc.paths['/notes'].post.requestBody.content['application/json'].example, { text: 'hello' });
  const warned = log.lines.filter((l) => l.level === 'warn' && l.message.startsWith('openapiExamples')).map((l) => l.fields.example);
  assert.deepEqual(warned, ['GET /nowhere', 'POST /notes/{id}'], 'examples that match nothing are reported at listen()');
});

test('openapiExamples that are not keyed "<METHOD> /path" or hold unknown fields are a TypeError naming the key', () => {
  assert.throws(() => createServiceAPI({ openapiExamples: { '/x': {} } as never }), { name: 'TypeError', message: /openapiExamples\["\/x"\]\]?.*"<METHOD> \/path"/ });
  assert.throws(() => createServiceAPI({ openapiExamples: { 'GET /x': { params: {} } } as never }), { name: 'TypeError', message: /\["GET \/x"\] has an unknown option \(key 1\); the options are parameters, body, response/ });
  assert.throws(() => createServiceAPI({ openapiExamples: { 'GET /x': { parameters: [] } } as never }), { name: 'TypeError', message: /parameters must be an object/ });
  assert.throws(() => createServiceAPI({ openapiExamples: [] as never }), { name: 'TypeError', message: /options\.openapiExamples must be an object/ });
});
