/**
 * Test helper: serves a component's Mountable routes on a loopback `node:http` server (port 0), the way
 * the host would, and records log lines and events.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { FhirgateError } from '../../src/errors.js';
import type { EventDispatcher, EventPayload } from '../../src/events/types.js';
import { MOUNT, type Logger, type MountableComponent, type Route, type RouteRequest } from '../../src/mount/index.js';

export interface LogLine {
  level: string;
  message: string;
  fields: Record<string, unknown> | undefined;
}

export interface Served {
  /** `http://127.0.0.1:<port>/cds` */
  base: string;
  logs: LogLine[];
  close(): Promise<void>;
}

/** A dispatcher that records what is emitted. */
export function recordingDispatcher(): EventDispatcher & { events: [string, EventPayload][] } {
  const events: [string, EventPayload][] = [];
  return { events, emit: (name, payload) => void events.push([name, payload]), register: () => () => {}, drain: async () => {} };
}

function match(route: Route, method: string, path: string): Record<string, string> | undefined {
  if (route.method !== method) return undefined;
  const want = route.path.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = Object.create(null) as Record<string, string>;
  for (let i = 0; i < want.length; i++) {
    const w = want[i] ?? '';
    const g = got[i] ?? '';
    if (w.startsWith(':')) params[w.slice(1)] = decodeURIComponent(g);
    else if (w !== g) return undefined;
  }
  return params;
}

function readBody(req: http.IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new FhirgateError('ERR_BODY_TOO_LARGE', 'body too large', { status: 413 }));
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function serveMountable(t: TestContext, component: MountableComponent, prefix = '/cds'): Promise<Served> {
  const mountable = component[MOUNT]();
  const routes = mountable.routes();
  const logs: LogLine[] = [];
  const log = Object.fromEntries(
    ['debug', 'info', 'warn', 'error'].map((level) => [level, (message: string, fields?: Record<string, unknown>) => logs.push({ level, message, fields })]),
  ) as unknown as Logger;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
    const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : '\u0000';
    let found: { route: Route; params: Record<string, string> } | undefined;
    for (const route of routes) {
      const params = match(route, req.method ?? 'GET', path);
      if (params !== undefined) {
        found = { route, params };
        break;
      }
    }
    if (found === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"ERR_NOT_FOUND","message":"no route"}}');
      return;
    }
    const aborter = new AbortController();
    res.on('close', () => aborter.abort());
    const routeRequest: RouteRequest = {
      method: req.method ?? 'GET',
      params: found.params,
      query: url.searchParams,
      headers: req.headers,
      url,
      baseUrl: `${url.origin}${prefix}`,
      requestId: 'test',
      signal: aborter.signal,
      log,
      bytes: (limit = 1024 * 1024) => readBody(req, limit),
      async *chunks(limit = 1024 * 1024) {
        yield await readBody(req, limit);
      },
    };
    Promise.resolve(found.route.handle(routeRequest)).then(
      (reply) => res.writeHead(reply.status ?? 200, reply.headers).end(reply.body),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = async (): Promise<void> => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  t.after(close);
  return { base: `http://127.0.0.1:${port}${prefix}`, logs, close };
}

/** POSTs JSON (or any text with the given content type) and returns status, headers and parsed body. */
export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}
