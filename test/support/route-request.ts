/**
 * The one fake {@link RouteRequest}: built in memory, so a component's routes can be called without a
 * socket. Its logger captures every line (`req.log.lines`); the body comes in the given pieces, under the
 * limit the route asks for.
 * @module
 */
import type { IncomingHttpHeaders } from 'node:http';
import { FhirgateError } from '../../src/errors.js';
import type { RouteRequest } from '../../src/mount/index.js';
import { captureLogger, type CapturingLogger } from './logger.js';

/** What the fake request holds; everything has a default. */
export interface FakeRequestInit {
  /** Default `GET`. */
  readonly method?: string;
  /** The mount point, default `http://127.0.0.1:8000/fhir` (or the origin of `url` when that is given). */
  readonly baseUrl?: string;
  /** The full request URL; default `baseUrl` + `path` + `?query`. */
  readonly url?: string;
  /** The path under the mount point, used when `url` is not given. */
  readonly path?: string;
  /** The query string without `?`, used when `url` is not given. */
  readonly query?: string;
  readonly params?: Record<string, string>;
  /** Default `{ host: '127.0.0.1:8000' }`. */
  readonly headers?: IncomingHttpHeaders;
  /** The body, whole or in the pieces it arrives in; default empty. */
  readonly body?: string | Buffer | readonly Buffer[];
  /** Default `req-1`. */
  readonly requestId?: string;
  /** Both `signal` and `connectionSignal`; default a signal that never aborts. */
  readonly signal?: AbortSignal;
}

/** A fake request whose logger keeps its lines. */
export type FakeRequest = RouteRequest & { readonly log: CapturingLogger };

async function* stream(parts: readonly Buffer[], limit: number): AsyncIterable<Buffer> {
  let total = 0;
  for (const part of parts) {
    total += part.length;
    if (total > limit) throw new FhirgateError('ERR_BODY_TOO_LARGE', 'body too large', { status: 413 });
    yield part;
  }
}

function pieces(body: FakeRequestInit['body']): readonly Buffer[] {
  if (body === undefined) return [];
  if (typeof body === 'string') return [Buffer.from(body)];
  return Buffer.isBuffer(body) ? [body] : body;
}

/**
 * A {@link RouteRequest} as the host would build it, over an in-memory body, with a capturing logger.
 *
 * @example
 * ```ts
 * const req = fakeRequest({ params: { type: 'Patient', id: '1' }, query: 'source=epic' });
 * const reply = await route.handle(req);
 * assert.equal(req.log.lines.length, 0);
 * ```
 */
export function fakeRequest(init: FakeRequestInit = {}): FakeRequest {
  const given = init.url === undefined ? undefined : new URL(init.url);
  const baseUrl = init.baseUrl ?? given?.origin ?? 'http://127.0.0.1:8000/fhir';
  const url = given ?? new URL(`${baseUrl}${init.path ?? ''}?${init.query ?? ''}`);
  const body = pieces(init.body);
  const signal = init.signal ?? new AbortController().signal;
  return {
    method: init.method ?? 'GET',
    params: Object.assign(Object.create(null) as Record<string, string>, init.params),
    query: given === undefined ? new URLSearchParams(init.query ?? '') : url.searchParams,
    headers: init.headers ?? { host: '127.0.0.1:8000' },
    url,
    baseUrl,
    requestId: init.requestId ?? 'req-1',
    signal,
    connectionSignal: signal,
    log: captureLogger(),
    bytes: async (limit = Number.POSITIVE_INFINITY) => {
      const read: Buffer[] = [];
      for await (const part of stream(body, limit)) read.push(part);
      return Buffer.concat(read);
    },
    chunks: (limit = Number.POSITIVE_INFINITY) => stream(body, limit),
  };
}
