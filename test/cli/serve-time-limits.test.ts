/** The time settings of fhirgate.json reach the server, as real processes, with one process and with workers. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { startSandbox } from '../../src/sandbox/index.js';
import { startCli, tempDir, waitServing } from '../support/run-cli.js';

/** Sends half a request's headers and waits (at most `waitMs`) for what the server does; resolves to what it sent back, or 'nothing'. */
function slowClient(origin: string, waitMs: number): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect(Number(port), hostname, () => socket.write('GET /health HTTP/1.1\r\nHost: x\r\n'));
    const timer = setTimeout(() => {
      socket.destroy();
      resolve('nothing');
    }, waitMs);
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
  });
}

test('headersTimeoutMs from the config reaches the server, with one process and with workers: a slow client gets 408 long before the 15 s default', async (t) => {
  const sb = await startSandbox({ seed: 'a' });
  t.after(() => sb.close());
  const dir = tempDir(t);
  writeFileSync(join(dir, 'slow.json'), JSON.stringify({ sources: { a: sb.connectionString() }, port: 0, headersTimeoutMs: 300, requestTimeoutMs: 2000, shutdownGraceMs: 2000, stopTimeoutMs: 5000 }));
  for (const extra of [[], ['--workers', '1']]) {
    const run = startCli(t, ['serve', '--config', join(dir, 'slow.json'), ...extra]);
    const origin = new URL((await waitServing(run)).gateway).origin;
    assert.match(await slowClient(origin, 8000), /^HTTP\/1\.1 408 /, `with ${extra.join(' ') || 'one process'}`);
    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0);
  }
});
