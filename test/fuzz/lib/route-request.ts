/**
 * A {@link RouteRequest} built in memory, so that a component's routes can be fuzzed without a socket:
 * the body comes in the given pieces, under the limit the route asks for.
 * @module
 */
import type { IncomingHttpHeaders } from 'node:http';
import { FhirgateError } from '../../../src/errors.js';
import type { Logger, RouteRequest } from '../../../src/mount/index.js';

/**
 * What the fake request holds.
 *
 * @example
 * ```ts
 * const init: FakeRequestInit = { url: 'http://127.0.0.1/notereader', headers: { 'content-type': 'text/xml' }, body: [xml] };
 * ```
 */
export interface FakeRequestInit {
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  /** The body, in the pieces it arrives in. */
  readonly body: readonly Buffer[];
  readonly params?: Record<string, string>;
}

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

async function* stream(parts: readonly Buffer[], limit: number): AsyncIterable<Buffer> {
  let total = 0;
  for (const part of parts) {
    total += part.length;
    if (total > limit) throw new FhirgateError('ERR_BODY_TOO_LARGE', 'body too large', { status: 413 });
    yield part;
  }
}

/**
 * A POST {@link RouteRequest} over an in-memory body, with a quiet logger.
 *
 * @example
 * ```ts
 * const reply = await route.handle(fakeRequest({ url: 'http://127.0.0.1/cds/cds-services/x', headers: {}, body: [Buffer.from('{}')], params: { id: 'x' } }));
 * ```
 */
export function fakeRequest(init: FakeRequestInit): RouteRequest {
  const url = new URL(init.url);
  const params: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, init.params);
  return {
    method: 'POST',
    params,
    query: url.searchParams,
    headers: init.headers,
    url,
    baseUrl: url.origin,
    requestId: 'fuzz',
    signal: new AbortController().signal,
    log: quiet,
    bytes: async (limit = Number.POSITIVE_INFINITY) => {
      const read: Buffer[] = [];
      for await (const part of stream(init.body, limit)) read.push(part);
      return Buffer.concat(read);
    },
    chunks: (limit = Number.POSITIVE_INFINITY) => stream(init.body, limit),
  };
}
