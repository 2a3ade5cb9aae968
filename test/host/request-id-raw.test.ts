import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { startApp } from '../support/serve.js';

/** Sends `head` as it is on a new connection and resolves with the whole answer text. */
function rawRequest(base: string, head: string): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.end(head));
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

test('X-Request-ID is read from the raw headers: any case is echoed; a repeated one is replaced by a UUID', async (t) => {
  const { base } = await startApp(t, {}, (a) => a.get('/r', (ctx) => ({ id: ctx.requestId })));
  const once = await rawRequest(base, 'GET /r HTTP/1.1\r\nHost: x\r\nX-REQUEST-ID: Abc-1\r\nConnection: close\r\n\r\n');
  assert.match(once, /\r\nx-request-id: Abc-1\r\n/i);
  assert.match(once, /"id":"Abc-1"/);
  const twice = await rawRequest(base, 'GET /r HTTP/1.1\r\nHost: x\r\nX-Request-ID: a\r\nx-request-id: b\r\nConnection: close\r\n\r\n');
  const id = /\r\nx-request-id: ([^\r]*)\r\n/i.exec(twice)?.[1];
  assert.match(String(id), /^[0-9a-f-]{36}$/);
  assert.match(twice, new RegExp(`"id":"${id}"`));
});
