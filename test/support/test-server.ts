/** A small node:http server for transport tests: counts sockets, lets each test answer as it likes. */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { TestContext } from 'node:test';

export interface TestServer {
  readonly url: string;
  readonly server: http.Server;
  /** Sockets open now, the most at once, and accepted in all. */
  readonly sockets: { open: number; max: number; accepted: number };
  /** Every request seen: method, url, headers, body, and when it arrived (`performance.now()` of the server). */
  readonly seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string; socket: Socket; at: number }[];
}

export async function startServer(
  t: TestContext,
  handle: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void,
): Promise<TestServer> {
  const sockets = { open: 0, max: 0, accepted: 0 };
  const seen: TestServer['seen'] = [];
  const server = http.createServer((req, res) => {
    const at = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, socket: req.socket, at });
      handle(req, res, body);
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.open++;
    sockets.accepted++;
    sockets.max = Math.max(sockets.max, sockets.open);
    socket.once('close', () => sockets.open--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, sockets, seen };
}

/** Resolves when `condition()` holds, checking every 10 ms; rejects after a generous safety time-out. */
export async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
