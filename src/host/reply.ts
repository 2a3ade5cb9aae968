/**
 * What custom route handlers return when they need a status or headers other than the defaults.
 * @module
 */
import type { RouteReply } from '../mount/index.js';

const REPLY: unique symbol = Symbol.for('fhirgate.host.reply') as never;

/** A reply built by {@link reply}: status, headers and a body (JSON value, string or bytes). */
export interface Reply {
  readonly [REPLY]: true;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/**
 * Builds a reply for a custom route. A `string` body is sent as `text/plain`, a `Uint8Array` as
 * `application/octet-stream`, `undefined` as no body, anything else as JSON; a `content-type` in
 * `headers` wins. Without `reply()`, a handler's returned value is sent as JSON 200 and `undefined` as 204.
 *
 * @example
 * ```ts
 * app.post('/notes', async (ctx) => reply(201, { id: '7' }, { location: '/notes/7' }));
 * ```
 */
export function reply(status: number, body?: unknown, headers: Record<string, string> = {}): Reply {
  if (!Number.isInteger(status) || status < 200 || status > 599) throw new RangeError('reply "status" must be an integer from 200 to 599');
  return Object.freeze({ [REPLY]: true as const, status, headers: { ...headers }, body });
}

function isReply(value: unknown): value is Reply {
  return typeof value === 'object' && value !== null && (value as Partial<Reply>)[REPLY] === true;
}

function hasContentType(headers: Readonly<Record<string, string>>): boolean {
  return Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
}

/** Turns what a custom handler returned into a {@link RouteReply}. */
export function toRouteReply(value: unknown): RouteReply {
  if (!isReply(value)) return value === undefined ? { status: 204 } : encode(200, value, {});
  return encode(value.status, value.body, value.headers);
}

function encode(status: number, body: unknown, headers: Readonly<Record<string, string>>): RouteReply {
  if (body === undefined) return { status, headers: { ...headers } };
  const [defaultType, payload]: [string, string | Uint8Array] =
    typeof body === 'string' ? ['text/plain; charset=utf-8', body]
    : body instanceof Uint8Array ? ['application/octet-stream', body]
    : ['application/json; charset=utf-8', JSON.stringify(body) ?? 'null'];
  return { status, headers: hasContentType(headers) ? { ...headers } : { 'content-type': defaultType, ...headers }, body: payload };
}
