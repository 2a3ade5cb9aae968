/**
 * Debian's `openssl s_server` as a strict mutual-TLS server: OpenSSL itself checks the client
 * certificate in the handshake and answers a missing, expired or foreign one with a TLS alert, as
 * servers built on OpenSSL do (Node's own TLS server just closes the connection). Serves its status
 * page (`-www`) to a client it accepts.
 * @module
 */
import type { TestContext } from 'node:test';
import { startServer } from './bus-servers.js';
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
  const args = (port: number): string[] => ['s_server', '-accept', `127.0.0.1:${port}`, '-cert', certs.serverCert, '-key', certs.serverKey, '-CAfile', certs.ca, '-Verify', '1', '-verify_return_error', '-www', '-quiet'];
  return (await startServer(t, openssl, (port) => `127.0.0.1:${port}`, args)).url;
}
