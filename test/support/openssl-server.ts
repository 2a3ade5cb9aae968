/**
 * Debian's `openssl s_server` as a strict mutual-TLS server: OpenSSL itself checks the client
 * certificate in the handshake and answers a missing, expired or foreign one with a TLS alert, as
 * servers built on OpenSSL do (Node's own TLS server just closes the connection). Serves its status
 * page (`-www`) to a client it accepts.
 * @module
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import type { TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.js';
import { systemBinary } from './system-binary.js';
import type { TestCertificates } from './tls-certs.js';

/**
 * Starts `openssl s_server` on a free loopback port with the server certificate of `certs`, asking for
 * a client certificate of their CA (`-Verify 1 -verify_return_error`); stopped in `t.after`. Returns
 * `127.0.0.1:<port>`, or `undefined` when the test was skipped (no `openssl`).
 *
 * @example
 * ```ts
 * const authority = await strictTLSServer(t, certs);
 * ```
 */
export async function strictTLSServer(t: TestContext, certs: TestCertificates): Promise<string | undefined> {
  const openssl = systemBinary(t, 'openssl');
  if (openssl === undefined) return undefined;
  const port = await freePort();
  const args = ['s_server', '-accept', `127.0.0.1:${port}`, '-cert', certs.serverCert, '-key', certs.serverKey, '-CAfile', certs.ca, '-Verify', '1', '-verify_return_error', '-www', '-quiet'];
  const child = spawn(openssl, args, { stdio: 'ignore' });
  t.after(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => resolve(socket.destroy() !== undefined));
      socket.once('error', () => resolve(false));
    });
    if (up) return `127.0.0.1:${port}`;
    await sleep(50);
  }
  throw new Error(`openssl s_server did not listen on 127.0.0.1:${port} within 30 s`);
}
