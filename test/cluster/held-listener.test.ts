/**
 * A listener that closes without resetting anyone: its accept queue read from /proc (Linux), the
 * connections held while it closes, answered once it is closed; and the fall-back where the queue
 * cannot be read.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer } from 'node:net';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { acceptQueueReader } from '../../src/cluster/accept-queue.js';
import { HeldListener } from '../../src/cluster/held-listener.js';

const linux = process.platform === 'linux';

async function listening(t: TestContext): Promise<{ listener: ReturnType<typeof createServer>; port: number }> {
  const listener = createServer();
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  t.after(() => void (listener.listening && listener.close()));
  return { listener, port: (listener.address() as { port: number }).port };
}

/** Opens `n` connections to `port` from another process while this one's event loop is blocked, so that they stay queued. */
function connectWhileBlocked(port: number, n: number): void {
  const script = `const net = require('node:net'); let open = 0;
    for (let i = 0; i < ${n}; i++) net.connect(${port}, '127.0.0.1', () => { if (++open === ${n}) process.exit(0); });`;
  const run = spawnSync(process.execPath, ['-e', script], { timeout: 30_000 });
  assert.equal(run.status, 0, String(run.stderr));
}

test('the accept queue of a listener is read from /proc: the connections it has not accepted yet', { skip: !linux && 'Linux only' }, async (t) => {
  const { listener, port } = await listening(t);
  listener.on('connection', (socket: Socket) => socket.destroy());
  const read = acceptQueueReader(listener);
  assert.equal(typeof read, 'function', String(read));
  assert.deepEqual((read as () => unknown)(), { queued: 0, handshaking: 0 });
  connectWhileBlocked(port, 3);
  assert.equal((read as () => { queued: number } | undefined)()?.queued, 3, 'three handshakes completed while the loop was blocked');
  listener.close();
  assert.equal((read as () => unknown)(), undefined, 'a closed listener has no line any more');
  assert.match(String(acceptQueueReader(listener)), /no socket/);
});

test('held connections are answered only after the listener closed; later ones are refused, none reset', { skip: !linux && 'Linux only' }, async (t) => {
  const { listener, port } = await listening(t);
  const http = createHttpServer((_req, res) => res.end('answered'));
  t.after(() => http.close());
  const held = new HeldListener(listener, (socket) => http.emit('connection', socket));
  held.hold();
  // Two requests arrive while holding: accepted, not answered.
  const answers = [0, 1].map(() => fetch(`http://127.0.0.1:${port}/`).then((res) => res.text()));
  while (held.held < 2) await new Promise((resolve) => setTimeout(resolve, 5));
  let answered = 0;
  void Promise.all(answers).then(() => (answered = 2));
  const quiet = await held.quiet();
  assert.equal(quiet.quiet, true, JSON.stringify(quiet));
  const closed = await held.close();
  assert.deepEqual(closed.queue, { queued: 0, handshaking: 0 });
  assert.equal(listener.listening, false);
  assert.equal(answered, 0, 'nothing answered before the release');
  const refused = await new Promise<string>((resolve) => connect(port, '127.0.0.1').once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? '')).once('connect', () => resolve('connected')));
  assert.equal(refused, 'ECONNREFUSED');
  held.release();
  assert.deepEqual(await Promise.all(answers), ['answered', 'answered']);
});

test('where the queue cannot be read, the listener closes at once and says why', async (t) => {
  const { listener } = await listening(t);
  const held = new HeldListener(listener, (socket) => socket.destroy());
  // The reader is taken at hold(): a closed listener has none (the same path as no /proc).
  listener.close();
  held.hold();
  const quiet = await held.quiet();
  assert.equal(quiet.quiet, false);
  assert.equal((quiet as { reason: string }).reason, 'the listener is closed');
  assert.equal((await held.close()).queue, undefined);
});
