/**
 * Test helper: serves a Mountable's routes on a real `node:http` server on 127.0.0.1, port 0, building
 * the `RouteRequest`s the host would build. Torn down in `t.after`.
 */
import { createServer } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { FhirgateError } from '../../src/errors.js';
import type { Logger, Mountable, RouteRequest } from '../../src/mount/index.js';

export interface LogLine {
  level: string;
  message: string;
  fields: Record<string, unknown> | undefined;
}

export interface Served {
  /** The mount point, e.g. `http://127.0.0.1:1234/notereader`. */
  baseUrl: string;
  logs: LogLine[];
}

async function* readChunks(req: IncomingMessage, limit: number): AsyncIterable<Buffer> {
  if (Number(req.headers['content-length'] ?? 0) > limit) throw new FhirgateError('ERR_BODY_TOO_LARGE', 'body too large', { status: 413 });
  let total = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > limit) throw new FhirgateError('ERR_BODY_TOO_LARGE', 'body too large', { status: 413 });
    yield chunk;
  }
}

export async function serveMountable(t: TestContext, face: Mountable, prefix = face.defaultPath): Promise<Served> {
  const logs: LogLine[] = [];
  const log: Logger = Object.fromEntries(
    ['debug', 'info', 'warn', 'error'].map((level) => [level, (message: string, fields?: Record<string, unknown>) => void logs.push({ level, message, fields })]),
  ) as unknown as Logger;
  const routes = face.routes();
  let base = '';
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    const route = routes.find((r) => r.method === req.method && (url.pathname === prefix + r.path || url.pathname === `${prefix}${r.path}/`));
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    const controller = new AbortController();
    res.on('close', () => controller.abort());
    const request: RouteRequest = {
      method: req.method ?? 'GET',
      params: Object.create(null) as Record<string, string>,
      query: url.searchParams,
      headers: req.headers,
      url,
      baseUrl: base + prefix,
      requestId: 'test-request',
      signal: controller.signal,
      log,
      bytes: async (limit = 1 << 20) => {
        const parts: Buffer[] = [];
        for await (const c of readChunks(req, limit)) parts.push(c);
        return Buffer.concat(parts);
      },
      chunks: (limit = 1 << 20) => readChunks(req, limit),
    };
    Promise.resolve()
      .then(() => route.handle(request))
      .then(
        (reply) => {
          if (!req.complete) req.resume();
          res.writeHead(reply.status ?? 200, reply.headers ?? {}).end(reply.body);
        },
        (err: unknown) => {
          logs.push({ level: 'uncaught', message: String(err), fields: undefined });
          req.resume();
          res.writeHead(599).end();
        },
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t.after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { baseUrl: base + prefix, logs };
}
