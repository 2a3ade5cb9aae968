/**
 * A TLS front for a loopback server (the sandbox): the tests' `https` upstream signed by their private
 * CA, optionally asking for a client certificate, recording who connected.
 * @module
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { createServer } from 'node:tls';
import type { TLSSocket } from 'node:tls';
import type { Sandbox, SandboxOptions } from '../../src/sandbox/index.js';
import { sandbox } from './sandbox.js';
import { testCertificates } from './tls-certs.js';
import type { TestCertificates } from './tls-certs.js';

/** A running front. */
export interface TLSFront {
  readonly port: number;
  /** `127.0.0.1:<port>`, for connection strings. */
  readonly authority: string;
  /** The common name of the client certificate of every connection that completed the handshake (`''` for none). */
  readonly clients: string[];
  /** The remote port of every connection that completed the handshake. */
  readonly peers: number[];
}

/**
 * Listens on 127.0.0.1 port 0 with the server certificate of `certs` and relays every connection to
 * `targetPort`. It asks every client for a certificate of the CA; with `requireClientCert`, a client
 * without one is refused in the handshake. Closed in `t.after`.
 *
 * @example
 * ```ts
 * const front = await tlsFront(t, certs, sandboxPort, { requireClientCert: true });
 * ```
 */
export async function tlsFront(t: TestContext, certs: TestCertificates, targetPort: number, options: { requireClientCert?: boolean } = {}): Promise<TLSFront> {
  const clients: string[] = [];
  const peers: number[] = [];
  const open = new Set<TLSSocket>();
  const server = createServer(
    {
      cert: readFileSync(certs.serverCert),
      key: readFileSync(certs.serverKey),
      ca: readFileSync(certs.ca),
      requestCert: true,
      rejectUnauthorized: options.requireClientCert === true,
    },
    (socket: TLSSocket) => {
      const cn = socket.getPeerCertificate().subject?.CN;
      clients.push(typeof cn === 'string' ? cn : '');
      peers.push(socket.remotePort ?? 0);
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      const upstream = connect(targetPort, '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    },
  );
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of open) socket.destroy();
    return closed;
  });
  const { port } = server.address() as AddressInfo;
  return { port, authority: `127.0.0.1:${port}`, clients, peers };
}

/** A sandbox behind a {@link tlsFront}, with the certificates of both. */
export interface TLSSandbox {
  readonly certs: TestCertificates;
  readonly front: TLSFront;
  readonly sb: Sandbox;
}

/**
 * The tests' `https` upstream: certificates made now, a sandbox (`sandboxOptions`) and a TLS front for
 * it; `undefined` when the test was skipped (no `openssl`).
 *
 * @example
 * ```ts
 * const up = await tlsSandbox(t, { requireClientCert: true }, { open: true });
 * if (up === undefined) return;
 * ```
 */
export async function tlsSandbox(t: TestContext, options: { requireClientCert?: boolean } = {}, sandboxOptions: SandboxOptions = {}): Promise<TLSSandbox | undefined> {
  const certs = testCertificates(t);
  if (certs === undefined) return undefined;
  const sb = await sandbox(t, sandboxOptions);
  return { certs, sb, front: await tlsFront(t, certs, Number(new URL(sb.origin).port), options) };
}
