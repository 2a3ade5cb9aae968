/**
 * A client that goes away mid-body (issue 13): a client event, logged once at info on the access line,
 * never as a handler failure at error level, whatever reads the body (custom route, NoteReader, CDS).
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { CDSHooksService } from '../../src/cds/index.js';
import { NoteReaderService } from '../../src/soap/service.js';
import { until } from '../support/test-server.js';
import { startApp } from '../support/serve.js';

test('a client that disconnects mid-body is one info line (client_gone), never an error, on every body reader', async (t) => {
  const cds = new CDSHooksService();
  cds.hook('patient-view', { id: 'greet', description: 'greets' }, () => ({ cards: [] }));
  const nr = new NoteReaderService().method('ProcessDocument', () => 'ok');
  const { base, log } = await startApp(t, {}, (app) => {
    app.post('/echo', async (ctx) => ({ bytes: (await ctx.bytes()).length }));
    app.registerService(cds).registerService(nr);
  });
  const port = Number(new URL(base).port);
  const targets: [string, string][] = [['/echo', 'application/json'], ['/notereader', 'text/xml; charset=utf-8'], ['/cds/cds-services/greet', 'application/json']];
  for (const [path, type] of targets) {
    const id = `gone-${path.replace(/\W/g, '')}`;
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nX-Request-ID: ${id}\r\nContent-Type: ${type}\r\nContent-Length: 100000\r\n\r\n<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">`);
      setImmediate(() => socket.destroy());
    });
    socket.on('error', () => {});
    await until(() => log.lines.some((l) => l.message === 'request' && l.fields['request_id'] === id), `the access line of ${path}`);
    const lines = log.lines.filter((l) => l.fields['request_id'] === id);
    assert.equal(lines.length, 1, `${path}: ${JSON.stringify(lines)}`);
    assert.equal(lines[0]!.level, 'info');
    assert.equal(lines[0]!.fields['client_gone'], true, path);
  }
  assert.deepEqual(log.lines.filter((l) => l.level === 'error' || l.level === 'warn'), []);
});
