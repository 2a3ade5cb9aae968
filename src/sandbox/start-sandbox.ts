/**
 * Starting and stopping a sandbox: an in-memory FHIR R4 server plus OAuth 2.0 token endpoint on
 * `node:http`.
 * @module
 */
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { FhirgateError } from '../errors.js';
import { buildConnectionString, type ConnectionStringOptions } from './connection-string.js';
import type { SandboxContext } from './context.js';
import { FaultSwitches, type SandboxFaults } from './faults.js';
import { resolveOptions, type ResolvedOptions, type SandboxOptions } from './options.js';
import { requestListener } from './request-listener.js';
import { FHIR_PATH, TOKEN_PATH } from './routes.js';
import { seedResources } from './seed.js';
import { StatsRecorder, type SandboxStats } from './stats.js';
import { ResourceStore } from './store.js';
import { TokenStore } from './token-store.js';

/**
 * A running sandbox.
 *
 * @example
 * ```ts
 * const sandbox = await startSandbox();
 * sandbox.fhirBase; sandbox.tokenUrl; sandbox.stats.tokenRequests;
 * await sandbox.close();
 * ```
 */
export interface Sandbox {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** The FHIR base, `http://127.0.0.1:PORT/fhir/R4` (no trailing slash). */
  readonly fhirBase: string;
  /** The token endpoint, `http://127.0.0.1:PORT/oauth2/token`. */
  readonly tokenUrl: string;
  /**
   * A `fhir://` connection string for a registered client (default: the first one). A key client
   * needs `{ keyPath }`, the path of its private key file.
   */
  connectionString(clientId?: string, options?: ConnectionStringOptions): string;
  /** What the sandbox saw. */
  readonly stats: SandboxStats;
  /** Switches that make it misbehave on purpose. */
  readonly faults: SandboxFaults;
  /** Stops listening and destroys every socket. Idempotent. */
  close(): Promise<void>;
  /** Same as `close()`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

function originOf(address: AddressInfo): string {
  const unspecified = address.address === '0.0.0.0' || address.address === '::';
  if (address.family === 'IPv6') return `http://[${unspecified ? '::1' : address.address}]:${address.port}`;
  return `http://${unspecified ? '127.0.0.1' : address.address}:${address.port}`;
}

function seedStore(seed: ResolvedOptions['seed']): ResourceStore {
  const store = new ResourceStore();
  const resources = seed === false ? [] : typeof seed === 'string' ? seedResources(seed) : seed;
  for (const r of resources) store.create(r, r.id);
  return store;
}

/**
 * Starts a sandbox. Resolves once it listens; rejects with `ERR_NETWORK` when it cannot listen (a
 * busy port). Misused options throw `TypeError`/`RangeError`.
 *
 * @example
 * ```ts
 * import { startSandbox } from 'fhirgate/sandbox';
 * await using sandbox = await startSandbox({ seed: 'a' });
 * gw.addSource('local', sandbox.connectionString());
 * sandbox.faults.failNext(1, 503, { retryAfter: 1 });
 * ```
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const resolved = resolveOptions(options);
  const sockets = new Set<Socket>();
  const stats = new StatsRecorder();
  const tokens = new TokenStore();
  const abort = new AbortController();
  const faults = new FaultSwitches({
    closeSockets: () => sockets.forEach((s) => s.destroy()),
    expireTokens: () => tokens.expireAll(),
  });
  const server = createServer();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    stats.socketOpened();
    socket.once('close', () => {
      sockets.delete(socket);
      stats.socketClosed();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (cause: NodeJS.ErrnoException) => {
      const why = cause.code === 'EADDRINUSE' ? 'the port is already in use' : 'listening failed';
      reject(new FhirgateError('ERR_NETWORK', `sandbox: cannot listen on ${resolved.host}:${resolved.port}: ${why}`, { cause }));
    });
    server.listen(resolved.port, resolved.host, resolve);
  });
  const origin = originOf(server.address() as AddressInfo);
  const ctx: SandboxContext = {
    options: resolved,
    store: seedStore(resolved.seed),
    tokens,
    stats,
    faults,
    fhirBase: `${origin}${FHIR_PATH}`,
    tokenUrl: `${origin}${TOKEN_PATH}`,
    signal: abort.signal,
  };
  server.on('request', requestListener(ctx));
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      abort.abort();
      server.close(() => resolve());
      server.closeAllConnections();
      sockets.forEach((s) => s.destroy());
    });
    return closing;
  };
  return {
    origin,
    fhirBase: ctx.fhirBase,
    tokenUrl: ctx.tokenUrl,
    connectionString(clientId?: string, csOptions?: ConnectionStringOptions): string {
      const client = clientId === undefined ? resolved.clients.values().next().value : resolved.clients.get(clientId);
      if (client === undefined) throw new RangeError(`connectionString: no client "${String(clientId)}" is registered`);
      return buildConnectionString(ctx.fhirBase, ctx.tokenUrl, client, csOptions);
    },
    stats,
    faults,
    close,
    [Symbol.asyncDispose]: close,
  };
}
