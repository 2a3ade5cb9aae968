/**
 * A `CONNECT` tunnel through an HTTP proxy, then TLS to the upstream inside it: the connection an
 * agent for an `https` upstream behind a proxy makes.
 * @module
 */
import { connect as netConnect } from 'node:net';
import type { Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { ConnectionOptions } from 'node:tls';
import { STATUS_CODES } from 'node:http';
import { FhirgateError } from '../errors.js';
import type { ProxyServer } from './proxy-options.js';

/** The longest proxy answer head read before the tunnel is given up. */
const MAX_HEAD_BYTES = 16 * 1024;

/** What Node's agent hands to `createConnection`: the TLS options, the upstream's host and port. */
type TunnelOptions = ConnectionOptions & { host?: string | null; port?: number | string | null };

/**
 * Opens a tunnel to the upstream in `options` through `proxy` and calls `done` once: with the TLS
 * socket, or with `ERR_PROXY` (unreachable, refused `CONNECT`, malformed answer) or `ERR_PROXY_AUTH`
 * (407). Errors name the proxy by its origin and the upstream by host and port, never a credential.
 */
export function openTunnel(proxy: ProxyServer, options: TunnelOptions, done: (err: Error | null, socket?: Socket) => void): void {
  const host = String(options.host ?? 'localhost');
  const authority = `${host.includes(':') ? `[${host}]` : host}:${String(options.port ?? 443)}`;
  const raw = netConnect({ host: proxy.host, port: proxy.port });
  let head = Buffer.alloc(0);
  const detach = (): void => {
    raw.off('data', onData);
    raw.off('error', onError);
    raw.off('close', onClose);
  };
  const fail = (err: Error): void => {
    detach();
    raw.on('error', ignore);
    raw.destroy();
    done(err);
  };
  const onError = (cause: Error): void => {
    const code = (cause as NodeJS.ErrnoException).code ?? 'connection failed';
    fail(new FhirgateError('ERR_PROXY', `the proxy ${proxy.origin} could not be reached or closed the connection while opening a tunnel to ${authority} (${code})`, { cause }));
  };
  const onClose = (): void => fail(new FhirgateError('ERR_PROXY', `the proxy ${proxy.origin} closed the connection before answering CONNECT ${authority}`));
  const onData = (chunk: Buffer): void => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end === -1) {
      if (head.length > MAX_HEAD_BYTES) fail(new FhirgateError('ERR_PROXY', `the proxy ${proxy.origin} sent an answer head larger than ${MAX_HEAD_BYTES} bytes to CONNECT ${authority}`));
      return;
    }
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head.toString('latin1', 0, Math.min(end, 64)))?.[1] ?? 0);
    if (status < 200 || status > 299) {
      fail(refused(proxy, authority, status));
      return;
    }
    // Bytes after the head would be the upstream's: none may come before our TLS hello.
    if (head.length > end + 4) {
      fail(new FhirgateError('ERR_PROXY', `the proxy ${proxy.origin} sent data after its answer to CONNECT ${authority}`));
      return;
    }
    detach();
    const secure = tlsConnect({ ...options, socket: raw });
    done(null, secure);
  };
  raw.on('error', onError);
  raw.on('close', onClose);
  raw.on('data', onData);
  raw.once('connect', () => {
    const auth = proxy.authorization === undefined ? '' : `Proxy-Authorization: ${proxy.authorization}\r\n`;
    raw.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth}\r\n`);
  });
}

function ignore(): void {}

/**
 * `ERR_PROXY_AUTH` for a 407 (or a 401: tinyproxy's answer to wrong credentials; no upstream has
 * answered yet), else `ERR_PROXY` with the proxy's status.
 */
function refused(proxy: ProxyServer, authority: string, status: number): FhirgateError {
  if (status === 407 || status === 401) return new FhirgateError('ERR_PROXY_AUTH', proxyAuthFailure(proxy, status));
  const text = status === 0 ? 'an answer that is not HTTP/1.x' : `${status} ${STATUS_CODES[status] ?? 'Unknown Status'}`;
  return new FhirgateError('ERR_PROXY', `the proxy ${proxy.origin} refused CONNECT ${authority} with ${text}`);
}

/** Why the proxy refused to forward, by whether the proxy URL holds credentials (never quoting them). */
export function proxyAuthFailure(proxy: ProxyServer, status: number): string {
  const why = proxy.authorization === undefined ? `asks for credentials (${status}): give them in the proxy URL, http://user:password@host:port` : `refused the credentials of the proxy URL (${status})`;
  return `the proxy ${proxy.origin} ${why}`;
}
