/**
 * Answers sent before the request body was read to its end (issue 13, item 1): the connection must stay
 * usable (the rest of the body drained, up to the body limit) or be closed with `Connection: close`;
 * never left holding unread bytes so that the next request on it is never answered.
 */
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import { test } from 'node:test';
import { CDSHooksService } from '../../src/cds/index.js';
import { json } from '../../src/mount/index.js';
import { NoteReaderService } from '../../src/soap/service.js';
import { startApp } from '../support/serve.js';
import { captureLogger } from '../support/logger.js';
import { call } from '../support/host-helpers.js';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The request went out on a socket an earlier request had used. */
  reused: boolean;
}

function send(agent: Agent, url: string, init: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c)).on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString(), reused: req.reusedSocket }));
    });
    req.on('error', reject);
    // A safety net only: a hung socket fails the test instead of stalling the suite.
    req.setTimeout(20_000, () => req.destroy(new Error('no answer on this connection')));
    req.end(init.body);
  });
}

/** Sends `first`, then a GET of `second` through one keep-alive socket slot; both answers. */
async function twoRequests(base: string, first: { path: string; method?: string; headers?: Record<string, string>; body?: Buffer | string }, second: string): Promise<[Answer, Answer]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const a = await send(agent, `${base}${first.path}`, first);
    const b = await send(agent, `${base}${second}`);
    return [a, b];
  } finally {
    agent.destroy();
  }
}

const quiet = captureLogger();

test('a NoteReader envelope refused at its DOCTYPE, 2 MB long: the fault is sent and the same connection answers the next request', async (t) => {
  const nr = new NoteReaderService();
  nr.method('ProcessDocument', () => 'ok');
  const { base } = await startApp(t, { logger: quiet }, (app) => app.registerService(nr));
  const body = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><x>${'y'.repeat(2 * 1024 * 1024)}</x>`;
  const [fault, next] = await twoRequests(base, { path: '/notereader', method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8' }, body }, '/notereader?wsdl');
  assert.equal(fault.status, 500);
  assert.match(fault.text, /faultcode>[^<]*Client</);
  assert.notEqual(fault.headers['connection'], 'close');
  assert.equal(next.status, 200);
  assert.equal(next.reused, true, 'the second request went out on the first one\'s socket');
  assert.match(next.text, /wsdl:definitions|definitions/);
});

test('early answers of the host (401, 404, 405) drain a body within the limit and keep the connection', async (t) => {
  const { base } = await startApp(t, { apiKeys: ['k'], bodyLimit: 256 * 1024, cors: { origins: ['https://app.example.org'] } }, (app) =>
    app.post('/only-post', () => json(200, {})).get('/open', () => json(200, { ok: true })));
  const body = Buffer.alloc(200 * 1024, 'a');
  const key = { 'x-api-key': 'k' };
  const cases = [
    { path: '/only-post', method: 'POST', headers: {}, status: 401 },
    { path: '/nowhere', method: 'POST', headers: key, status: 404 },
    { path: '/open', method: 'PUT', headers: key, status: 405 },
  ];
  for (const c of cases) {
    const [early, next] = await twoRequests(base, { ...c, body }, '/health');
    assert.equal(early.status, c.status, `${c.method} ${c.path}`);
    assert.notEqual(early.headers['connection'], 'close', `${c.method} ${c.path}`);
    assert.equal(next.status, 200, `after ${c.method} ${c.path}`);
    assert.equal(next.reused, true, `after ${c.method} ${c.path} the socket was kept`);
  }
});

test('a CORS preflight that carries a body is answered, and the request pipelined behind it on the same socket too', async (t) => {
  const { base } = await startApp(t, { cors: { origins: ['https://app.example.org'] } }, (app) => app.get('/open', () => ({ ok: true })));
  const body = 'a'.repeat(200 * 1024);
  const answers = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(new URL(base).port), '127.0.0.1', () => {
      socket.write(`OPTIONS /open HTTP/1.1\r\nHost: x\r\nOrigin: https://app.example.org\r\nAccess-Control-Request-Method: GET\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    });
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('latin1'))).on('close', () => resolve(data)).on('error', reject);
    socket.setTimeout(20_000, () => socket.destroy(new Error('safety net: no second answer')));
  });
  assert.deepEqual([...answers.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((m) => m[1]), ['204', '200']);
});

test('an early answer to a body declared larger than the limit says Connection: close, and the next request gets a new connection', async (t) => {
  const { base } = await startApp(t, { apiKeys: ['k'], bodyLimit: 1024 });
  const [early, next] = await twoRequests(base, { path: '/anything', method: 'POST', body: Buffer.alloc(64 * 1024, 'a') }, '/health');
  assert.equal(early.status, 401);
  assert.equal(early.headers['connection'], 'close');
  assert.equal(next.status, 200);
  assert.equal(next.reused, false);
});

test('CDS early answers (404 service, 401 client JWT, 415 media type, 400 invalid body) keep the connection usable', async (t) => {
  const cds = new CDSHooksService({ auth: { issuers: [{ issuer: 'https://ehr.example.org', jwks: { keys: [] } }] } });
  cds.hook('patient-view', { id: 'greet', description: 'greets' }, () => ({ cards: [] }));
  const open = new CDSHooksService();
  open.hook('patient-view', { id: 'greet', description: 'greets' }, () => ({ cards: [] }));
  const { base } = await startApp(t, { logger: quiet }, (app) => app.registerService(cds).registerService(open, { path: '/open', name: 'open' }));
  const body = JSON.stringify({ hook: 'patient-view', pad: 'x'.repeat(300 * 1024) });
  const cases: { path: string; headers: Record<string, string>; status: number }[] = [
    { path: '/cds/cds-services/nope', headers: { 'content-type': 'application/json' }, status: 404 },
    { path: '/cds/cds-services/greet', headers: { 'content-type': 'application/json', authorization: 'Bearer not.a.jwt' }, status: 401 },
    { path: '/open/cds-services/greet', headers: { 'content-type': 'text/plain' }, status: 415 },
    { path: '/open/cds-services/greet', headers: { 'content-type': 'application/json' }, status: 400 },
  ];
  for (const c of cases) {
    const [early, next] = await twoRequests(base, { ...c, method: 'POST', body }, '/cds/cds-services');
    assert.equal(early.status, c.status, c.path);
    assert.equal(next.status, 200, `after ${c.status}`);
    assert.equal(next.reused, true, `after ${c.status} the socket was kept`);
  }
});

test('a custom route that answers without reading a chunked body keeps the connection', async (t) => {
  const { base } = await startApp(t, { bodyLimit: 64 * 1024 }, (app) => app.post('/ignore', () => ({ ignored: true })));
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.after(() => agent.destroy());
  const first = await new Promise<Answer>((resolve, reject) => {
    const req = request(`${base}/ignore`, { method: 'POST', agent, headers: { 'transfer-encoding': 'chunked' } }, (res) => {
      res.resume().on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: '', reused: req.reusedSocket }));
    });
    req.on('error', reject);
    for (let i = 0; i < 8; i += 1) req.write(Buffer.alloc(4096, 'c'));
    req.end();
  });
  assert.equal(first.status, 200);
  const next = await send(agent, `${base}/health`);
  assert.equal(next.status, 200);
  assert.equal(next.reused, true);
});

test('a handler that never reads a huge declared body still gets a 413 before reading', async (t) => {
  const { base } = await startApp(t, { bodyLimit: 10 }, (a) => a.post('/b', async (ctx) => ({ got: await ctx.bytes() })));
  const res = await call(base, '/b', { method: 'POST', body: 'x'.repeat(11), headers: { 'content-type': 'application/json' } });
  assert.equal(res.status, 413);
  assert.equal(res.headers['connection'], 'close');
});
