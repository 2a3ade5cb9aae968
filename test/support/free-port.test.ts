import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { test } from 'node:test';
import { closeKeepingPort, freePort } from './free-port.js';

/** The states of the IPv4 sockets whose local address is 127.0.0.1:port (`06` is TIME_WAIT). */
function socketStates(port: number): string[] {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return readFileSync('/proc/net/tcp', 'utf8').split('\n').map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[1] === local).map((fields) => fields[3] ?? '');
}

const refusal = (port: number): Promise<string | undefined> => new Promise((resolve) => {
  const socket = connect(port, '127.0.0.1');
  socket.once('connect', () => { socket.destroy(); resolve('connected'); });
  socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code));
});

test('a freed port is refused, keeps a TIME_WAIT socket of its own (what keeps port-0 binds off it), and can be bound again', async (t) => {
  const port = await freePort();
  assert.equal(await refusal(port), 'ECONNREFUSED');
  assert.ok(socketStates(port).includes('06'), `a TIME_WAIT socket on 127.0.0.1:${port}`);

  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  t.after(() => server.close());
  assert.equal(await refusal(port), 'connected');
  assert.equal(await closeKeepingPort(server), port);
  assert.equal(await refusal(port), 'ECONNREFUSED');
});
