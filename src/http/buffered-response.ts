/**
 * The answer `exchange()` resolves with, and the `Content-Length` check made before its body is read.
 * @module
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { HTTPResponse } from './request-options.js';

/**
 * A complete, buffered answer. Node builds the `headers` object of a message only when it is first
 * read; a caller that needs only the status and the body never pays for it.
 */
export class BufferedResponse implements HTTPResponse {
  readonly status: number;
  readonly body: Buffer;
  readonly stream: IncomingMessage | undefined;
  readonly #message: IncomingMessage;

  /** `streamed`: the body was left unread in the message, which becomes `stream`. */
  constructor(message: IncomingMessage, body: Buffer, streamed = false) {
    this.status = message.statusCode ?? 0;
    this.body = body;
    this.stream = streamed ? message : undefined;
    this.#message = message;
  }

  get headers(): IncomingHttpHeaders {
    return this.#message.headers;
  }

  /** The message's raw header list (names as sent, values), which {@link pickHeaders} reads. */
  get rawHeaders(): readonly string[] {
    return this.#message.rawHeaders;
  }
}

/**
 * The headers Node keeps the first of when a message repeats them (`matchKnownFields` in
 * `node:_http_incoming`, the same in Node 20 and 24); any other repeated header but `set-cookie` is
 * joined with `, `.
 */
const FIRST_ONLY: ReadonlySet<string> = new Set([
  'age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host', 'if-modified-since', 'if-unmodified-since',
  'last-modified', 'location', 'max-forwards', 'proxy-authorization', 'referer', 'retry-after', 'server', 'user-agent',
]);

/**
 * The string values of the headers `names` (lower case, not `set-cookie`) of `res`, as its `headers`
 * object holds them. An answer of {@link BufferedResponse} is read from its raw header list, so that
 * the `headers` object is not built for a few of its headers: building it was 1% of a facade read's
 * CPU (`node --cpu-prof`, `_addHeaderLine` under the gateway's exchange).
 */
export function pickHeaders(res: HTTPResponse, names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  if (!(res instanceof BufferedResponse)) {
    for (const name of names) {
      const value = res.headers[name];
      if (typeof value === 'string') picked[name] = value;
    }
    return picked;
  }
  // Values by the place of their name in `names`, then set in that order (the order `headers` gave).
  const values: Array<string | undefined> = new Array(names.length);
  const raw = res.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const given = raw[i] as string;
    for (let k = 0; k < names.length; k++) {
      const name = names[k] as string;
      if (name.length !== given.length || given.toLowerCase() !== name) continue;
      const before = values[k];
      values[k] = before === undefined ? (raw[i + 1] as string) : FIRST_ONLY.has(name) ? before : `${before}, ${raw[i + 1] as string}`;
      break;
    }
  }
  for (let k = 0; k < names.length; k++) if (values[k] !== undefined) picked[names[k] as string] = values[k] as string;
  return picked;
}

/**
 * The `Content-Length` a message declares, read from its raw header list (so that the `headers`
 * object is not built); `NaN` when there is none.
 */
export function declaredLength(raw: readonly string[]): number {
  const value = rawHeader(raw, 'content-length');
  return value === undefined ? NaN : Number(value);
}

/**
 * The first value of the header `name` (lower case) in a message's raw header list, without building
 * its `headers` object; `undefined` when there is none.
 */
export function rawHeader(raw: readonly string[], name: string): string | undefined {
  for (let i = 0; i < raw.length; i += 2) {
    const given = raw[i] as string;
    if (given.length === name.length && given.toLowerCase() === name) return raw[i + 1];
  }
  return undefined;
}
